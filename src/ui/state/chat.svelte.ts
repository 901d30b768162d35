import { announcer } from './announcer.svelte';

export interface ChatMessage {
  id: string;
  role: 'user' | 'assistant';
  text: string;
  /** Set when the user stopped this reply before it finished. */
  stopped?: boolean;
}

/**
 * What the chat agent plugs in: given the conversation so far, stream the reply's text.
 * Abort `signal` ends the stream (Stop, Esc, New chat). Until an agent is connected,
 * Send only records the user's message.
 */
export type Responder = (history: readonly ChatMessage[], signal: AbortSignal) => AsyncIterable<string>;

let nextId = 0;
function messageId(): string {
  nextId += 1;
  return `m${Date.now().toString(36)}-${nextId}`;
}

class ChatState {
  messages = $state<ChatMessage[]>([]);
  /** Why the last reply failed, for the chat to show; cleared by the next send. */
  error = $state<string | null>(null);
  #generating = $state(false);
  #controller: AbortController | null = null;
  #responder: Responder | null = null;

  get isGenerating(): boolean {
    return this.#generating;
  }

  get isEmpty(): boolean {
    return this.messages.length === 0;
  }

  /** The agent's seam: one call when it is ready; pass null to disconnect. */
  connect(responder: Responder | null): void {
    this.#responder = responder;
  }

  /** Returns false (and does nothing) for blank text or while a reply is running. */
  send = async (text: string): Promise<boolean> => {
    if (text.trim() === '' || this.#generating) return false;
    this.error = null;
    this.messages.push({ id: messageId(), role: 'user', text });
    if (this.#responder) await this.#reply(this.#responder);
    return true;
  };

  stop = (): void => {
    this.#controller?.abort();
  };

  newChat = (): void => {
    this.stop();
    this.messages = [];
    this.error = null;
  };

  async #reply(responder: Responder): Promise<void> {
    const controller = new AbortController();
    this.#controller = controller;
    this.#generating = true;
    announcer.say('Knack is replying.');
    const history = $state.snapshot(this.messages) as ChatMessage[];
    this.messages.push({ id: messageId(), role: 'assistant', text: '' });
    // Write through the proxied element so the view updates as text arrives.
    const reply = this.messages[this.messages.length - 1];
    try {
      for await (const delta of responder(history, controller.signal)) {
        if (controller.signal.aborted) break;
        reply.text += delta;
      }
    } catch (error) {
      if (!controller.signal.aborted) this.error = error instanceof Error ? error.message : String(error);
    } finally {
      if (controller.signal.aborted) reply.stopped = true;
      this.#controller = null;
      this.#generating = false;
      announcer.say(controller.signal.aborted ? 'Reply stopped.' : this.error ? 'Reply failed.' : 'Reply finished.');
    }
  }
}

export const chat = new ChatState();
