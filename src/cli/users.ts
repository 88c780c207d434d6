import { createInterface } from 'node:readline';
import { calendarFeeds } from '../accounts/calendar-feeds.js';
import { findPasswordOwner, resetPasswordDirectly } from '../accounts/passwords.js';
import { createUser, MAX_NAME_LENGTH, MIN_PASSWORD_LENGTH, parseUserName } from '../accounts/users.js';
import { isLocale } from '../shared/i18n/index.js';
import { isValidEmail } from '../shared/values.js';
import { command, type Io, JSON_FLAG, resolveBrand, runGroup, UsageError, withDatabase } from './context.js';

export const USERS_HELP = `Usage:
  lead-intake users create --email EMAIL [--brand brd_...] [--name NAME] [--role owner|member]
                     [--language nl|en] [--json]
      Add a dashboard user to a brand (role owner by default). --name is the display name
      colleagues see on visits and in the history (the email stands in without one). --language is
      what they read the dashboard and their mails in (default: the brand's).
      The password (at least ${MIN_PASSWORD_LENGTH} characters; common and easily guessed ones are refused)
      is read from standard input, first line, or asked for twice at a hidden prompt when standard input is
      a terminal:
        printf '%s\\n' "$PASSWORD" | lead-intake users create --email owner@example.com
      --brand may be left out when there is exactly one brand.
  lead-intake users reset-password --email EMAIL
      Set a new password for a dashboard user, without email and without the old one (an email address
      belongs to one user across all brands). The same rules as create; the password is read the same way:
        printf '%s\n' "$PASSWORD" | lead-intake users reset-password --email owner@example.com
      The user is signed out everywhere, and their failed sign-ins and reset links are cleared.
  lead-intake users calendar-url --email EMAIL [--rotate] [--json]
      Print the address of the user's calendar feed of the visits assigned to them (PUBLIC_URL, then
      /calendar/TOKEN.ics), to subscribe to in a calendar app. --rotate gives it a new address first: the
      old one stops working at once. --json prints { "url" }.`;

export function usersCommand(argv: string[], io: Io): Promise<number> {
  return runGroup(
    'users',
    USERS_HELP,
    {
      create: createCommand,
      'reset-password': resetPasswordCommand,
      'calendar-url': calendarUrlCommand,
    },
    argv,
    io,
  );
}

async function readPassword(io: Io, unchanged = 'nothing was created'): Promise<string> {
  if (!io.stdin.isTTY) {
    let text = '';
    for await (const chunk of io.stdin) text += chunk.toString();
    return text.split(/\r?\n/)[0] ?? '';
  }
  const password = await promptHidden(io.stdin, 'Password: ', unchanged);
  const again = await promptHidden(io.stdin, 'Password again: ', unchanged);
  if (password !== again) throw new UsageError(`The two passwords differ; ${unchanged}.`);
  return password;
}

/** Asks on stderr (stdout stays clean for --json) without echoing what is typed. */
function promptHidden(
  input: NodeJS.ReadableStream,
  question: string,
  unchanged = 'nothing was created',
): Promise<string> {
  const output = process.stderr;
  const rl = createInterface({ input, output, terminal: true });
  output.write(question);
  // readline echoes each keystroke through this method; silencing it hides the password.
  (rl as unknown as { _writeToOutput: (text: string) => void })._writeToOutput = () => {};
  return new Promise<string>((resolve, reject) => {
    let answered = false;
    rl.once('line', (line) => {
      answered = true;
      rl.close();
      resolve(line);
    });
    rl.once('SIGINT', () => rl.close());
    rl.once('close', () => {
      output.write('\n');
      if (!answered) reject(new UsageError(`Cancelled; ${unchanged}.`));
    });
  });
}

const createCommand = command(
  {
    name: 'users create',
    help: USERS_HELP,
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      brand: { type: 'string' },
      role: { type: 'string', default: 'owner' },
      language: { type: 'string' },
      json: JSON_FLAG,
    },
  },
  async ({ values }, io) => {
    const email = values.email?.trim();
    if (!email) throw new UsageError(`--email is required.\n\n${USERS_HELP}`);
    if (!isValidEmail(email)) throw new UsageError(`--email must be a valid email address, got "${email}".`);
    let name: string | null;
    try {
      name = parseUserName(values.name);
    } catch {
      throw new UsageError(`--name must be at most ${MAX_NAME_LENGTH} characters.`);
    }
    const role = values.role;
    if (role !== 'owner' && role !== 'member') throw new UsageError('--role must be owner or member.');
    if (values.language !== undefined && !isLocale(values.language)) {
      throw new UsageError('--language must be nl or en.');
    }
    // The brand is checked before the password is asked for, so nobody types a password in vain.
    const user = await withDatabase(async (database) => {
      const brandId = await resolveBrand(database, values.brand);
      const password = await readPassword(io);
      if (!password) {
        throw new UsageError('No password given: send it on standard input or type it at the prompt.');
      }
      return createUser(database, { brandId, email, name, password, role, language: values.language });
    });
    if (values.json) io.out(JSON.stringify(user));
    else {
      const who = user.name ? `${user.name} <${user.email}>` : user.email;
      io.out(`Created ${user.role} ${who} (${user.id}) for brand ${user.brandId}.`);
    }
    return 0;
  },
);

const resetPasswordCommand = command(
  {
    name: 'users reset-password',
    help: USERS_HELP,
    options: {
      email: { type: 'string' },
    },
  },
  async ({ values }, io) => {
    const email = values.email?.trim();
    if (!email) throw new UsageError(`--email is required.\n\n${USERS_HELP}`);
    if (!isValidEmail(email)) throw new UsageError(`--email must be a valid email address, got "${email}".`);
    const unchanged = 'the password is unchanged';
    const result = await withDatabase(async (database) => {
      // The user is looked up before the password is asked for, so nobody types a password in vain.
      if (!(await findPasswordOwner(database, { email }))) {
        throw new UsageError(`No user with email ${email}; nothing was changed.`);
      }
      const password = await readPassword(io, unchanged);
      if (!password) {
        throw new UsageError(
          `No password given: send it on standard input or type it at the prompt; ${unchanged}.`,
        );
      }
      return resetPasswordDirectly(database, email, password);
    });
    const sessions = result.signedOut === 1 ? '1 session' : `${result.signedOut} sessions`;
    io.out(`Password changed for ${result.owner.email} (${result.owner.id}); signed out of ${sessions}.`);
    return 0;
  },
);

const calendarUrlCommand = command(
  {
    name: 'users calendar-url',
    help: USERS_HELP,
    options: {
      email: { type: 'string' },
      rotate: { type: 'boolean', default: false },
      json: JSON_FLAG,
    },
  },
  async ({ values }, io) => {
    const email = values.email?.trim();
    if (!email) throw new UsageError(`--email is required.\n\n${USERS_HELP}`);
    if (!isValidEmail(email)) throw new UsageError(`--email must be a valid email address, got "${email}".`);
    const url = await withDatabase(async (database, config) => {
      const owner = await findPasswordOwner(database, { email });
      if (!owner) throw new UsageError(`No user with email ${email}.`);
      const feeds = await calendarFeeds(
        database,
        owner.id,
        config.publicUrl,
        values.rotate ? 'mine' : undefined,
      );
      return feeds.mine.url;
    });
    io.out(values.json ? JSON.stringify({ url }) : url);
    return 0;
  },
);
