/**
 * Skill bodies as HTML, through the app's one markdown sanitiser (src/ui/markdown.ts).
 */
export { renderMarkdown as renderSkillMarkdown } from '../../markdown';
