// Password rules: length first, then zxcvbn-ts's estimate with the person's email and brand name as inputs.
import { describe, expect, it } from 'vitest';
import {
  checkPassword,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  passwordUserInputs,
} from '../../src/accounts/password-strength.js';

const INPUTS = ['owner@acme-plumbing.example', 'Acme Plumbing'];

function refusal(password: string, inputs = INPUTS): string {
  const result = checkPassword(password, inputs);
  if (result.ok) throw new Error(`"${password}" was accepted`);
  return result.message;
}

describe('checkPassword', () => {
  it.each([
    ['aaaaaaaaaa', /Repeated characters like "aaa" are easy to guess/],
    ['password123456', /similar to a commonly used password/],
    ['qwertyuiop12', /similar to a commonly used password/],
    ['P@ssw0rd12345', /similar to a commonly used password/],
    ['owner12345678', /easy to guess/],
  ])('refuses %s, saying why', (password, why) => {
    const message = refusal(password);
    expect(message).toMatch(/^is too easy to guess\. /);
    expect(message).toMatch(why);
    // A suggestion follows the warning.
    expect(message).toMatch(/Add more words that are less common$/);
  });

  it('refuses passwords built from the email or the brand name, whatever the separators and case', () => {
    for (const password of [
      'acme-plumbing-2026',
      'AcmePlumbing2026!',
      'Acme Plumbing 2026',
      'plumbing2026',
    ]) {
      expect(refusal(password)).toBe(
        'is too easy to guess. It contains your email address or your company name. Add more words that are less common',
      );
    }
    // The local part of the email, with digits.
    expect(refusal('jvdberg19850', ['jvdberg@example.com'])).toMatch(/your email address/);
    // Without the inputs, the same password would pass: the inputs make the difference.
    expect(checkPassword('acme-plumbing-2026', [])).toEqual({ ok: true });
    expect(checkPassword('jvdberg19850', [])).toEqual({ ok: true });
  });

  it('refuses common Dutch words and passwords, which only the Dutch dictionaries know', () => {
    for (const password of [
      'zonneschijn1',
      'goedemorgen1',
      'Sinterklaas1',
      'welkomthuis',
      'wachtwoord2026',
    ]) {
      const result = checkPassword(password, INPUTS);
      expect(result.ok, password).toBe(false);
      if (!result.ok) expect(result.text.key).toBe('password.weak');
    }
  });

  it("gives people zxcvbn's warning and suggestion as ids for the catalog, the API its English", () => {
    const result = checkPassword('password123456', INPUTS);
    if (result.ok) throw new Error('accepted');
    expect(result.text).toEqual({
      key: 'password.weak',
      values: { warning: 'similarToCommon', suggestion: 'anotherWord' },
    });
    const own = checkPassword('acme-plumbing-2026', INPUTS);
    if (own.ok) throw new Error('accepted');
    expect(own.text.values).toEqual({ warning: 'userInputs', suggestion: 'anotherWord' });
  });

  it('accepts a passphrase and a random password', () => {
    expect(checkPassword('correct horse battery', INPUTS)).toEqual({ ok: true });
    expect(checkPassword('Tq7#vL2p!xR9mZ4w', INPUTS)).toEqual({ ok: true });
    expect(checkPassword('x3Jb8-kWq2_Zp9vR', [])).toEqual({ ok: true });
  });

  it('checks the length first, in the words the forms already used', () => {
    expect(checkPassword('abc', INPUTS)).toEqual({
      ok: false,
      message: `must be at least ${MIN_PASSWORD_LENGTH} characters`,
      text: { key: 'password.tooShort', values: { min: MIN_PASSWORD_LENGTH } },
    });
    expect(MIN_PASSWORD_LENGTH).toBe(10);
    // Strong but too long: the length rule answers, not zxcvbn.
    expect(checkPassword('Tq7#vL2p!x'.repeat(103), INPUTS)).toEqual({
      ok: false,
      message: `must be at most ${MAX_PASSWORD_LENGTH} characters`,
      text: { key: 'validation.tooLong', values: { max: MAX_PASSWORD_LENGTH } },
    });
  });

  it('only reads the first 100 characters, so a long input stays quick', () => {
    // Strong first 100 characters, then a repeat: accepted (the rest is not looked at).
    const strongStart = 'Tq7#vL2p!xR9mZ4w correct horse battery '.repeat(3).slice(0, 100);
    expect(checkPassword(strongStart + 'a'.repeat(900), INPUTS)).toEqual({ ok: true });
    // A weak first 100 characters is refused however it goes on.
    expect(checkPassword('a'.repeat(100) + 'Tq7#vL2p!xR9mZ4w', INPUTS).ok).toBe(false);
    // How long a long input takes is measured by benchmark, not asserted here (shared, noisy machines).
  });
});

describe('passwordUserInputs', () => {
  it('gives the values, their words, and the words joined as people join them', () => {
    expect(passwordUserInputs(['Jan.de-Vries@Acme-Plumbing.nl', ' Acme Plumbing ', ''])).toEqual([
      'jan.de-vries@acme-plumbing.nl',
      'acme-plumbing',
      'acme plumbing',
      'jan de vries',
      'jan-de-vries',
      'jandevries',
      'jan_de_vries',
      'jan.de.vries',
      'acmeplumbing',
      'acme_plumbing',
      'acme.plumbing',
      'jan',
      'de',
      'vries',
      'acme',
      'plumbing',
    ]);
  });
});
