import { Logger } from '@nestjs/common';

export interface LogLine {
  level: 'log' | 'warn' | 'error' | 'debug' | 'verbose';
  context?: string;
  /** The message text (the string argument). */
  message: string;
  /** Everything the call carried, serialised: what a sink would write. */
  text: string;
}

const LEVELS = ['log', 'warn', 'error', 'debug', 'verbose'] as const;

/**
 * Records every call made through Nest's Logger (which the service's classes use) while letting it through to the
 * real sink: spies on the Logger's methods, no replacement of any channel. `restore()` ends the recording.
 */
export function captureLogs() {
  const lines: LogLine[] = [];
  const spies = LEVELS.map((level) => {
    const original = Logger.prototype[level] as (...args: unknown[]) => void;
    return jest.spyOn(Logger.prototype, level).mockImplementation(function (
      this: Logger,
      ...args: unknown[]
    ) {
      const message = args.find((a): a is string => typeof a === 'string') ?? '';
      const context = (this as unknown as { context?: string }).context;
      lines.push({ level, context, message, text: JSON.stringify(args) });
      original.apply(this, args);
    });
  });
  return {
    lines,
    /** Lines from one context (the Logger's name), in order. */
    of: (context: string) => lines.filter((l) => l.context === context),
    all: () => lines.map((l) => `${l.level} [${l.context ?? ''}] ${l.text}`).join('\n'),
    clear: () => lines.splice(0, lines.length),
    restore: () => spies.forEach((spy) => spy.mockRestore()),
  };
}
