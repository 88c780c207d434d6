import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { DomainError } from '../domain/errors.js';
import { createUser } from '../domain/users.js';
import { type Io, resolveBrand, UsageError, withDatabase } from './context.js';

const HELP = `Usage:
  lead-intake users create --email EMAIL [--brand brd_...] [--role owner|member] [--json]
      Add a dashboard user. The password is read from standard input (one line) or asked for at the prompt.
      --brand may be left out when there is exactly one brand.`;

async function readPassword(io: Io): Promise<string> {
  const stdin = io.stdin;
  if (!stdin.isTTY) {
    let text = '';
    for await (const chunk of stdin) text += chunk.toString();
    return text.replace(/\r?\n$/, '').split(/\r?\n/)[0] ?? '';
  }
  // Interactive: prompt without echoing the password.
  const rl = createInterface({ input: stdin, output: process.stdout, terminal: true });
  const write = (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput;
  let prompted = false;
  (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = (s: string) => {
    if (!prompted) {
      write.call(rl, s);
      prompted = true;
    }
  };
  const answer = await new Promise<string>((resolve) => rl.question('Password: ', resolve));
  rl.close();
  process.stdout.write('\n');
  return answer;
}

export async function usersCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      brand: { type: 'string' },
      role: { type: 'string', default: 'owner' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help || !sub || sub === '--help' || sub === '-h') {
    io.out(HELP);
    return values.help || sub === '--help' || sub === '-h' ? 0 : 1;
  }
  if (sub !== 'create') throw new UsageError(`Unknown users command "${sub}".\n\n${HELP}`);
  if (!values.email) throw new UsageError(`--email is required.\n\n${HELP}`);
  if (values.role !== 'owner' && values.role !== 'member')
    throw new UsageError('--role must be owner or member.');
  const role = values.role;
  const password = await readPassword(io);
  if (!password)
    throw new UsageError('No password given: send it on standard input or type it at the prompt.');
  try {
    const user = await withDatabase(async (database) => {
      const brandId = await resolveBrand(database, values.brand);
      return createUser(database.db, { brandId, email: values.email!, password, role });
    });
    if (values.json) io.out(JSON.stringify(user));
    else io.out(`Created ${user.role} ${user.email} (${user.id}) for brand ${user.brandId}.`);
    return 0;
  } catch (error) {
    if (error instanceof DomainError && error.code === 'conflict') throw new UsageError(error.message);
    throw error;
  }
}
