/**
 * The review's instructions for forging a tool (docs/forged-tools.md, "Forging"), in Knack's own
 * words: when a procedure belongs in code and when judgment belongs in SKILL.md, the three files
 * of a tool, and at least 6 cases drawn from the conversation. Kept apart from the rest of the
 * review prompt (reviewPrompts.ts) so each can change without the other.
 */
export const FORGE_PART = `Judgment goes into SKILL.md; a deterministic procedure goes into code. When the conversation worked out a procedure whose output follows from its input alone — arithmetic with business rules (discount, VAT, rounding), unit or date conversions, formatting, parsing, validation — forge it into a tool as well: models get such steps wrong even with the steps written out, and a tool does not. What to say, which option fits, tone and trade-offs stay in SKILL.md.
A tool is three files of the skill, written with write_file in this order:
1. tools/<tool-name>.json: {"name": "<tool-name>", "description": "<when to call it, one short sentence>", "input_schema": {"type": "object", "properties": {"<arg>": {"type": "number", "description": "<meaning, unit>"}}, "required": ["<arg>"]}, "output_schema": {"type": "number"}}
2. tools/<tool-name>.js: plain JavaScript defining function run(input) that returns a JSON value — no import, require, network, timers or randomness; round exactly as the user did.
3. evals/tool-cases.json: {"tool": "<tool-name>", "cases": [{"id": 1, "input": {"<arg>": <value>}, "expect": <exact output>}]} with at least 6 cases from this conversation: the user's own figures first, then siblings that exercise each rule (no discount, zero, a large amount, rounding at half a cent).
Knack runs these cases in a sandbox and offers the tool to the chat only when they pass. Add one line to SKILL.md naming the tool. If skill_view lists development_failures for a tool, fix tools/<tool-name>.js for those cases: a rewrite is kept only if it passes more cases than the version it replaces.`;
