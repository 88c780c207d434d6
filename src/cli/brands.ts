import { parseArgs } from 'node:util';
import { createBrand, listBrands } from '../domain/brands.js';
import { type Io, UsageError, withDatabase } from './context.js';

const HELP = `Usage:
  lead-intake brands create --name NAME [--country CC] [--json]
      Create a brand. --country is the default country of its addresses (ISO 3166-1 alpha-2, default NL).
  lead-intake brands list [--json]`;

export async function brandsCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      country: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help || !sub || sub === '--help' || sub === '-h') {
    io.out(HELP);
    return values.help || sub === '--help' || sub === '-h' ? 0 : 1;
  }
  if (sub === 'create') {
    if (!values.name) throw new UsageError('--name is required.\n\n' + HELP);
    const brand = await withDatabase((database) =>
      createBrand(database.db, { name: values.name, country: values.country }),
    );
    if (values.json) io.out(JSON.stringify(brand));
    else io.out(`Created brand ${brand.id} "${brand.name}" (default country ${brand.defaultCountry}).`);
    return 0;
  }
  if (sub === 'list') {
    const brands = await withDatabase((database) => listBrands(database.db));
    if (values.json) io.out(JSON.stringify(brands));
    else if (!brands.length)
      io.out('No brands yet. Create one: lead-intake brands create --name "Your company"');
    else for (const b of brands) io.out(`${b.id}  ${b.defaultCountry}  ${b.name}`);
    return 0;
  }
  throw new UsageError(`Unknown brands command "${sub}".\n\n${HELP}`);
}
