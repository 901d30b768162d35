/**
 * A scripted model for whole gate runs. It reads each request the way a model would: is a
 * skill loaded in the user message (the `/<skill-name>` invocation), and which question is
 * asked. Without a skill it gives the world's baseline answer; with one it follows the skill's
 * body, written in a tiny synthetic language:
 *
 *   case: <prompt> => <answer>     the answer to that exact prompt
 *   otherwise: <answer>            the answer to every other prompt
 *
 * where `<answer>` is literal text, or `@style`: the answer style of that name in
 * `styles`, computed from the prompt (`@baseline` answers as without the skill). A skill that
 * says nothing about a prompt gets the baseline answer. Tests write these bodies from the split the
 * gate itself computes (splitCases), so a skill can "know" which cases are dev.
 */
import { ProviderError, type ChatProvider, type ChatRequest, type StreamPart } from '../../../../src/providers/provider';

export interface GateModelOptions {
  model?: string;
  /** The world: what the model answers each prompt without any skill. */
  baseline: (prompt: string) => string;
  /** Answer styles a skill body can name as `@style`. */
  styles?: Record<string, (prompt: string) => string>;
  /** Wrap every answer in reasoning that, read as the answer, would change the checks. */
  reasoning?: (prompt: string) => string;
  /** Every request fails like this (e.g. an unreachable server). */
  failWith?: () => Error;
  /** Requests (1-based, in arrival order) that fail once with a 503. */
  failOnce?: ReadonlySet<number>;
  /** Parameters the server refuses with a 400 naming them. */
  refuses?: ReadonlySet<'temperature' | 'seed'>;
  /** Called with each request before it is answered; may wait (e.g. to hold a request open). */
  onRequest?: (request: ChatRequest, n: number) => Promise<void> | void;
  /** The answer of request number n (1-based) is replaced by this, when set (noise). */
  override?: (n: number, answer: string, prompt: string) => string;
}

const SKILL_BLOCK = /<skill name="([^"]*)">\n([\s\S]*)\n<\/skill>\n\n([\s\S]*)$/;

/** The question and the loaded skill body (if any) of a gate request. */
export function readRequest(request: ChatRequest): { prompt: string; skillBody: string | null } {
  const user = [...request.messages].reverse().find((message) => message.role === 'user')?.content ?? '';
  const match = SKILL_BLOCK.exec(user);
  return match ? { prompt: match[3], skillBody: match[2] } : { prompt: user, skillBody: null };
}

/** What the synthetic skill body says to answer, or null when it says nothing about `prompt`. */
export function skillAnswer(body: string, prompt: string): string | null {
  let otherwise: string | null = null;
  for (const line of body.split('\n')) {
    const exact = /^case: (.*) => (.*)$/.exec(line);
    if (exact && exact[1] === prompt) return exact[2];
    const fallback = /^otherwise: (.*)$/.exec(line);
    if (fallback) otherwise = fallback[1];
  }
  return otherwise;
}

export function createGateModel(options: GateModelOptions) {
  const resolve = (said: string, prompt: string): string => {
    if (!said.startsWith('@')) return said;
    const name = said.slice(1);
    const style = name === 'baseline' ? options.baseline : options.styles?.[name];
    if (!style) throw new Error(`The skill names an unknown answer style: ${said}`);
    return style(prompt);
  };
  const log: { prompt: string; withSkill: boolean; params: { temperature?: number; seed?: number } }[] = [];
  let n = 0;
  const provider: ChatProvider = {
    id: 'scripted-gate-model',
    model: options.model ?? 'scripted-model',
    nativeTools: true,
    async *stream(request): AsyncIterable<StreamPart> {
      const number = ++n;
      const { prompt, skillBody } = readRequest(request);
      log.push({ prompt, withSkill: skillBody !== null, params: { temperature: request.temperature, seed: request.seed } });
      await options.onRequest?.(request, number);
      if (options.failWith) throw options.failWith();
      if (options.failOnce?.has(number)) throw new ProviderError('server', 'HTTP 503 Service Unavailable', '', 503);
      for (const param of options.refuses ?? []) {
        if (request[param] !== undefined) {
          throw new ProviderError('bad-request', `Unsupported parameter: ${param}`, '', 400, { rejectedParam: param });
        }
      }
      const said = skillBody === null ? null : skillAnswer(skillBody, prompt);
      let answer = said === null ? options.baseline(prompt) : resolve(said, prompt);
      if (options.override) answer = options.override(number, answer, prompt);
      const reasoning = options.reasoning ? `<think>${options.reasoning(prompt)}</think>\n` : '';
      yield { type: 'text-delta', text: reasoning + answer };
      yield { type: 'usage', usage: { promptTokens: 40, completionTokens: 10 } };
      yield { type: 'finish', reason: 'stop' };
    },
  };
  return {
    provider,
    log,
    get requests() {
      return n;
    },
  };
}
