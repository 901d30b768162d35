/**
 * Text for the polite live region. Replies announce their start and end only,
 * never every token (screen readers would chatter through a whole reply).
 */
class Announcer {
  #message = $state('');
  #timer: ReturnType<typeof setTimeout> | undefined;

  get message(): string {
    return this.#message;
  }

  say = (text: string): void => {
    // Clear first, then set on the next task: a repeated sentence ("Reply finished")
    // is otherwise not a change and would not be read again.
    clearTimeout(this.#timer);
    this.#message = '';
    this.#timer = setTimeout(() => {
      this.#message = text;
    }, 50);
  };
}

export const announcer = new Announcer();
