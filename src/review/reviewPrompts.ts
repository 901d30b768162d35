import type { ReviewKind } from '../agent/learningCounters';
import { FORGE_PART } from './forgePrompt';

/**
 * What the review agent is asked to do (docs/learning-loop.md), in Knack's own words. The review sees the
 * conversation as its history and this as the final user message.
 */
const MEMORY_PART = `Look back over the conversation above for facts about the user — who they are, what they want, their preferences and their setup — and for expectations about how you should work with them. If something is worth keeping, save it with the memory tool (short, declarative entries). If nothing stands out, answer exactly "Nothing to save." and stop.`;

const SKILL_PART = `Look back over the conversation above and decide what Knack should learn from it as a skill: a reusable procedure for a class of tasks, written for this user.

Learn from:
- corrections of style, tone, format or length (a user's frustration is a signal too);
- corrections of method or step order — write them as steps or pitfalls;
- a fix, workaround or technique that was not obvious;
- a skill that was loaded and turned out wrong, incomplete or outdated — fix it.

Where to put it, in this order of preference:
1. patch a skill that was loaded in this conversation;
2. patch an existing skill that covers this class of task (find it with skills_list, read it with skill_view);
3. add a supporting file to such a skill (references/ for knowledge, templates/ for starting points, scripts/ for repeatable actions) with write_file, plus a one-line pointer in its SKILL.md;
4. only when nothing fits, create a new skill whose name describes the class of problem (never an incident, error text, ticket number or date). Its description starts with when to use it and stays within 60 characters.

Whenever you create or patch a skill, also write or extend its evals/evals.json: the cases a later check replays with and without the skill to see whether it helps. Draw them from this conversation:
- add the user's actual request once, marked "knack": {"source": true};
- every other case is a sibling of the task (same kind of request, different details), never the same prompt reworded;
- prefer checks a good answer passes and a weak one fails (icontains, contains_any, regex) over cases with only not_contains checks;
- if the answer depended on earlier turns or retrieved text, put them in the case's "messages" so it stands on its own;
- write at least 4 cases, 6 or more to give the skill a chance of being verified; keep prompts short.
Shape (placeholders in angle brackets; write real values):
{"skill_name": "<skill>", "evals": [{"id": <n>, "prompt": "<request>", "messages": [{"role": "user", "content": "<earlier turn>"}], "expected_output": "<what a good answer does>", "checks": [{"type": "icontains", "value": "<word a good answer uses>"}], "knack": {"source": true}}]}
If the file exists, read it with skill_view first and add to it; the tool tells you what to fix when a case is not valid.

Do not save: errors that were transient or came from the environment (missing programs, credentials, network), failures that were never resolved, one-off narratives of what happened, or claims that a tool does not work. Save the fix, not the failure.

Rules of the road: you may only change skills you created earlier (the tools refuse the user's own, imported and pinned skills — leave those alone and mention them in your reply instead). Before you patch or overwrite a file, read it with skill_view in this run; if a write is refused, read once and retry once, no loops. Write each lesson as a rule with its reason; fix wrong text in place instead of appending updates. If two skills overlap, say so in your reply rather than merging them.

If there is truly nothing worth keeping, answer exactly "Nothing to save."`;

export function reviewPrompt(kind: ReviewKind): string {
  const tools = `You are running in the background after the conversation, not talking to the user. Only the memory and skill tools are available here (memory, skills_list, skill_view, skill_manage).`;
  if (kind === 'memory') return `${MEMORY_PART}\n\n${tools}`;
  if (kind === 'skills') return `${SKILL_PART}\n\n${FORGE_PART}\n\n${tools}`;
  return `${MEMORY_PART}\n\nThen:\n\n${SKILL_PART}\n\n${FORGE_PART}\n\n${tools}`;
}

export const REVIEW_TOOLS = ['memory', 'skills_list', 'skill_view', 'skill_manage'] as const;
export const REVIEW_MAX_MODEL_CALLS = 16;
