import { createBrand, listBrands } from '../accounts/brands.js';
import { command, type Io, JSON_FLAG, runGroup, UsageError, withDatabase } from './context.js';

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
      create: createCommand,
      list: listCommand,
    },
    argv,
    io,
  );
}

const createCommand = command(
  {
    name: 'brands create',
    help: BRANDS_HELP,
    options: {
      name: { type: 'string' },
      country: { type: 'string' },
      'time-zone': { type: 'string' },
      language: { type: 'string' },
      json: JSON_FLAG,
    },
  },
  async ({ values }, io) => {
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
  },
);

const listCommand = command(
  {
    name: 'brands list',
    help: BRANDS_HELP,
    options: {
      json: JSON_FLAG,
    },
  },
  async ({ values }, io) => {
    const brands = await withDatabase((database) => listBrands(database));
    if (values.json) io.out(JSON.stringify(brands));
    else if (!brands.length)
      io.out('No brands yet. Create one: lead-intake brands create --name "Your company"');
    else for (const brand of brands) io.out(`${brand.id}  ${brand.defaultCountry}  ${brand.name}`);
    return 0;
  },
);
