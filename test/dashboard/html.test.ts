// The html`` template: the one place user data meets markup.
import { describe, expect, it } from 'vitest';
import { niceCeiling } from '../../src/leads/dashboard/views/charts.js';
import { escapeHtml, html, SafeHtml, trusted } from '../../src/platform/web/html.js';
import { safeNext } from '../../src/platform/web/http.js';

describe('html``', () => {
  it('escapes every interpolated string, in text and in attributes', () => {
    const value = `<script>alert('x')</script>"&`;
    expect(html`<p title="${value}">${value}</p>`.toString()).toBe(
      '<p title="&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&amp;">&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&amp;</p>',
    );
  });

  it('keeps nested html`` as markup, escapes strings inside lists, and drops null, undefined and false', () => {
    const items = ['<a>', html`<b>bold</b>`, null, undefined, false, 0];
    expect(html`<p>${items}</p>`.toString()).toBe('<p>&lt;a&gt;<b>bold</b>0</p>');
    expect(html`${html`<i>${'<x>'}</i>`}`.toString()).toBe('<i>&lt;x&gt;</i>');
  });

  it('passes markup through only when explicitly trusted', () => {
    expect(trusted('<br>')).toBeInstanceOf(SafeHtml);
    expect(html`${trusted('<br>')}`.toString()).toBe('<br>');
    // A string that merely looks like markup is still text.
    expect(html`${'<br>'}`.toString()).toBe('&lt;br&gt;');
    expect(escapeHtml('plain text')).toBe('plain text');
  });
});

describe('chart scale', () => {
  it('rounds the top of the scale up to a readable number', () => {
    expect([0, 1, 4, 5, 7, 12, 23, 60, 101, 2400].map(niceCeiling)).toEqual([
      4, 4, 4, 5, 10, 20, 25, 100, 200, 2500,
    ]);
  });
});

describe('redirect after sign-in', () => {
  it('allows dashboard paths only', () => {
    expect(safeNext('/dashboard/leads?q=roof&status=quoted')).toBe('/dashboard/leads?q=roof&status=quoted');
    for (const bad of [
      'https://evil.example',
      '//evil.example',
      '/dashboard//evil',
      '/sign-out',
      '/dashboard\\evil',
      'javascript:alert(1)',
    ]) {
      expect(safeNext(bad), bad).toBeUndefined();
    }
  });
});
