import { createBrand, listBrands } from '../accounts/brands.js';
import { type Io, parseFlags, runGroup, UsageError, withDatabase } from './context.js';

export const BRANDS_HELP = `Usage:
  lead-intake brands create --name NAME [--country CC] [--time-zone ZONE] [--language nl|en] [--json]
      Create a brand. --country is the default country of its addresses
      (ISO 3166-1 alpha-2, default NL). --time-zone is the IANA time zone the
      dashboard shows times in (default Europe/Amsterdam for NL, UTC otherwise).
      --language is what its new users, forms and customer mails default to
      (default nl for NL, en otherwise). --json prints the brand as one JSON object.
  lead-intake brands list [--json]
      List brands.`;

export function brandsCommand(argv: string[], io: Io): Promise<number> {
  return runGroup(
    'brands',
    BRANDS_HELP,
    {
      create: (args) => createCommand(args, io),
      list: (args) => listCommand(args, io),
    },
    argv,
    io,
  );
}

async function createCommand(args: string[], io: Io): Promise<number> {
  const { values } = parseFlags('brands create', {
    args,
    options: {
      name: { type: 'string' },
      country: { type: 'string' },
      'time-zone': { type: 'string' },
      language: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    io.out(BRANDS_HELP);
    return 0;
  }
  if (values.name === undefined) throw new UsageError(`--name is required.\n\n${BRANDS_HELP}`);
  const brand = await withDatabase((database) =>
    createBrand(database, {
      name: values.name,
      country: values.country,
      timeZone: values['time-zone'],
      language: values.language,
    }),
  );
  if (values.json) io.out(JSON.stringify(brand));
  else
    io.out(
      `Created brand ${brand.id} "${brand.name}" (default country ${brand.defaultCountry}, time zone ${brand.timeZone}, language ${brand.language}).`,
    );
  return 0;
}

async function listCommand(args: string[], io: Io): Promise<number> {
  const { values } = parseFlags('brands list', {
    args,
    options: {
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    io.out(BRANDS_HELP);
    return 0;
  }
  const brands = await withDatabase((database) => listBrands(database));
  if (values.json) io.out(JSON.stringify(brands));
  else if (!brands.length)
    io.out('No brands yet. Create one: lead-intake brands create --name "Your company"');
  else for (const brand of brands) io.out(`${brand.id}  ${brand.defaultCountry}  ${brand.name}`);
  return 0;
}
