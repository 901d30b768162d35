import type { ToolDefinition } from '../../tools/toolRegistry';
import type { SkillEngine } from '../skillEngine';
import { SkillManageTool } from './skillManage';
import { SkillViewTool } from './skillView';
import { SkillsListTool } from './skillsList';

/** The three skill tools as the model sees them (schemas in Knack's words). */
export function skillToolDefinitions(engine: SkillEngine): ToolDefinition[] {
  const list = new SkillsListTool(engine);
  const view = new SkillViewTool(engine);
  const manage = new SkillManageTool(engine);
  return [
    {
      name: 'skills_list',
      description: 'List the saved skills (procedures this user taught you) with name, description and category.',
      parameters: {
        type: 'object',
        properties: { category: { type: 'string', description: 'Only list skills in this category.' } },
        required: [],
      },
      run: (args) => list.run(args),
    },
    {
      name: 'skill_view',
      description:
        "Load a skill's full instructions (SKILL.md) and the list of its supporting files, or one supporting file when file_path is given. Load any skill that is even partly relevant before answering.",
      parameters: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'Skill name as listed in the index or by skills_list.' },
          file_path: { type: 'string', description: "A supporting file inside the skill, e.g. 'references/api.md'." },
          offset: { type: 'integer', description: 'Where to read on in a long file: the next_offset of the part shown before.' },
        },
        required: ['name'],
      },
      run: (args, context) => view.run(args, context),
    },
    {
      name: 'skill_manage',
      description:
        'Save or change a reusable procedure. Create a skill after a hard task that took many steps, after fixing a tricky error, after the user corrected your style or method, or when asked to remember how to do something. ' +
        'Prefer patch for small fixes, edit only for rewrites. A new skill needs SKILL.md with YAML frontmatter (name, description of at most 60 characters that starts with when to use it) and a body with steps and pitfalls. ' +
        'Supporting files go under references/, templates/, scripts/, assets/ or evals/. Pinned skills cannot be deleted. When deleting a skill whose content moved into another, pass absorbed_into.',
      parameters: {
        type: 'object',
        properties: {
          action: {
            type: 'string',
            description: 'What to do.',
            enum: ['create', 'edit', 'patch', 'delete', 'write_file', 'remove_file'],
          },
          name: { type: 'string', description: 'Skill name: lowercase letters, digits, ".", "_" and "-", at most 64 characters.' },
          content: { type: 'string', description: 'Full SKILL.md text (create, edit).' },
          category: { type: 'string', description: 'Optional single folder name to file a new skill under (create).' },
          old_string: { type: 'string', description: 'Text to replace (patch); include enough context to be unique.' },
          new_string: { type: 'string', description: 'Replacement text (patch); empty deletes the match.' },
          replace_all: { type: 'boolean', description: 'Replace every match instead of requiring a unique one (patch).' },
          file_path: { type: 'string', description: "Supporting file path, e.g. 'references/api.md' (write_file, remove_file; patch defaults to SKILL.md)." },
          file_content: { type: 'string', description: 'Content of the supporting file (write_file).' },
          absorbed_into: { type: 'string', description: 'On delete: the existing skill that now holds this content, or "" to prune.' },
        },
        required: ['action', 'name'],
      },
      run: (args, context) => manage.run(args, context),
    },
  ];
}
