/**
 * The user message that hands a skill to the model for one request: what `/<skill-name>
 * request` sends in chat, and what the verification gate sends in its with-skill arm. Both
 * must be the very same text (docs/gate.md: a skill is verified in the form it is used), so
 * this one function is the only place that writes it.
 */

/**
 * The skill's whole SKILL.md (never shortened) given to the model as if it had loaded it,
 * followed by the request; an empty request asks the model to apply the skill.
 */
export function buildSkillInvocation(skillName: string, skillMarkdown: string, request: string): string {
  const ask = request || `Apply the ${skillName} skill.`;
  return `[The user loaded the skill "${skillName}" for this request. Follow it.]\n\n<skill name="${skillName}">\n${skillMarkdown}\n</skill>\n\n${ask}`;
}
