// A real SMTP server for tests (smtp-server on 127.0.0.1), keeping every accepted mail parsed with mailparser.
// It can answer 451 (try again later) or 550 (refused for good) instead, and stop and start listening on its port.
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { Config } from '../../src/platform/config.js';

export interface ReceivedMail {
  /** RCPT TO addresses. */
  to: string[];
  /** The authenticated user, when the client logged in. */
  user: string | undefined;
  parsed: ParsedMail;
}

export type Answer = 'accept' | 'try-later' | 'refuse';

export interface SmtpReceiver {
  readonly port: number;
  readonly received: ReceivedMail[];
  /** How the next messages are answered (after DATA). */
  answer: Answer;
  /** Messages answered with anything but acceptance. */
  readonly refusals: number;
  url(credentials?: string): string;
  /** Mails whose RCPT TO included this address. */
  to(address: string): ReceivedMail[];
  /** Stops listening (the port stays reserved for listen()). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  listen(): Promise<void>;
  close(): Promise<void>;
}

function newServer(state: { answer: Answer; refusals: number; received: ReceivedMail[] }) {
  return new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    // Any login is accepted: the test is about what the app sends, not about checking passwords.
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      const answer = state.answer;
      simpleParser(stream)
        .then((parsed) => {
          if (answer === 'accept') {
            state.received.push({
              to: session.envelope.rcptTo.map((r) => r.address),
              user: typeof session.user === 'string' ? session.user : undefined,
              parsed,
            });
            callback();
            return;
          }
          state.refusals++;
          const error = new Error(answer === 'try-later' ? 'Try again later' : 'Mailbox unavailable');
          (error as Error & { responseCode: number }).responseCode = answer === 'try-later' ? 451 : 550;
          callback(error);
        })
        .catch((error: Error) => callback(error));
    },
  });
}

async function listenOn(server: SMTPServer, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.server.address() as AddressInfo).port;
}

function closeServer(server: SMTPServer): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Starts a receiver on a free port; with `listening: false` the port is chosen but nothing answers on it yet. */
export async function startSmtp(
  options: { answer?: Answer; listening?: boolean } = {},
): Promise<SmtpReceiver> {
  const state = {
    answer: options.answer ?? ('accept' as Answer),
    refusals: 0,
    received: [] as ReceivedMail[],
  };
  let server = newServer(state);
  const port = await listenOn(server, 0);
  let listening = true;
  if (options.listening === false) {
    await closeServer(server);
    listening = false;
  }
  return {
    port,
    received: state.received,
    get answer() {
      return state.answer;
    },
    set answer(value: Answer) {
      state.answer = value;
    },
    get refusals() {
      return state.refusals;
    },
    url: (credentials = 'mailer:secret-password') => `smtp://${credentials}@127.0.0.1:${port}`,
    to: (address) => state.received.filter((m) => m.to.includes(address)),
    async stop() {
      if (!listening) return;
      listening = false;
      await closeServer(server);
    },
    async listen() {
      if (listening) return;
      server = newServer(state);
      await listenOn(server, port);
      listening = true;
    },
    async close() {
      if (listening) await closeServer(server);
      listening = false;
    },
  };
}

/** Email settings for tests: short timeouts and retry delays; the window stays 24 hours unless a test shortens it. */
export function testMail(
  smtpUrl: string,
  overrides: Partial<NonNullable<Config['mail']>> = {},
): Config['mail'] {
  return {
    smtpUrl,
    from: 'Acme Leads <leads@acme.example>',
    timeoutMs: 2000,
    retryBaseMs: 20,
    retryWindowMs: 24 * 60 * 60 * 1000,
    pollIntervalMs: 50,
    ...overrides,
  };
}
