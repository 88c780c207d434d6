// Server-rendered SVG charts. Bars are SVG stretched to the width available; every text is HTML around them,
// so it stays readable on a phone. Each chart carries a text equivalent for screen readers.

import { html, type SafeHtml } from '../../../platform/web/html.js';
import { INTL_LOCALE, type Translator, zonedFormat } from '../../../shared/i18n/index.js';

import { type Status, stageOf } from '../../states.js';
import type { LeadStats } from '../../stats.js';
import { statusLabel } from './labels.js';

/** A round top for the scale: 4, or the smallest of 1, 2, 2.5, 5 times a power of ten that holds n. */
export function niceCeiling(n: number): number {
  if (n <= 4) return 4;
  const magnitude = 10 ** Math.floor(Math.log10(n));
  for (const step of [1, 2, 2.5, 5]) if (step * magnitude >= n) return step * magnitude;
  return 10 * magnitude;
}

/** "21 Nov" / "21 nov" for a YYYY-MM-DD day. */
function shortDate(tr: Translator, day: string): string {
  return zonedFormat(INTL_LOCALE[tr.locale], 'UTC', { day: 'numeric', month: 'short' }).format(
    new Date(`${day}T00:00:00Z`),
  );
}

export function perDayChart(tr: Translator, perDay: LeadStats['perDay']): SafeHtml {
  const total = perDay.reduce((sum, d) => sum + d.count, 0);
  const busiest = perDay.reduce((best, d) => (d.count > best.count ? d : best), perDay[0]!);
  const top = niceCeiling(busiest.count);
  const slot = 10;
  const summary = total
    ? tr.t('leads.chart.perDaySummary', {
        total,
        days: perDay.length,
        day: shortDate(tr, busiest.date),
        count: busiest.count,
      })
    : tr.t('leads.chart.perDayNone', { days: perDay.length });
  const bars = perDay.map((day, i) => {
    if (!day.count) return '';
    const height = (day.count / top) * 100;
    const today = i === perDay.length - 1;
    return html`<rect class="bar${today ? ' bar-today' : ''}" x="${i * slot + 1.5}" y="${100 - height}" width="${slot - 3}" height="${height}"><title>${tr.t('leads.chart.dayCount', { day: shortDate(tr, day.date), count: day.count })}</title></rect>`;
  });
  const middle = perDay[Math.floor(perDay.length / 2)]!;
  return html`<figure class="chart">
  <figcaption><h2 class="chart-title">${tr.t('leads.chart.perDayTitle')}</h2><p class="muted">${summary}</p></figcaption>
  <div class="chart-plot">
    <span class="chart-scale chart-scale-top" aria-hidden="true">${tr.number(top)}</span>
    <span class="chart-scale chart-scale-mid" aria-hidden="true">${tr.number(top / 2)}</span>
    <svg class="chart-svg" viewBox="0 0 ${perDay.length * slot} 100" preserveAspectRatio="none" role="img" aria-label="${summary}">
      <line class="grid" x1="0" x2="${perDay.length * slot}" y1="0.5" y2="0.5" vector-effect="non-scaling-stroke"/>
      <line class="grid" x1="0" x2="${perDay.length * slot}" y1="50" y2="50" vector-effect="non-scaling-stroke"/>
      ${bars}
      <line class="axis" x1="0" x2="${perDay.length * slot}" y1="100" y2="100" vector-effect="non-scaling-stroke"/>
    </svg>
  </div>
  <div class="chart-x" aria-hidden="true"><span>${shortDate(tr, perDay[0]!.date)}</span><span>${shortDate(tr, middle.date)}</span><span>${tr.t('leads.chart.today')}</span></div>
</figure>`;
}

/** Where a state's leads are listed: the leads page (cancelled ones included) or the work items. */
function listFor(status: Status): string {
  return stageOf(status) === 'work'
    ? `/dashboard/work-items?status=${status}`
    : `/dashboard/leads?status=${status}`;
}

export function perStatusChart(tr: Translator, perStatus: LeadStats['perStatus']): SafeHtml {
  const top = Math.max(1, ...perStatus.map((s) => s.count));
  const total = perStatus.reduce((sum, s) => sum + s.count, 0);
  return html`<figure class="chart">
  <figcaption><h2 class="chart-title">${tr.t('leads.chart.perStatusTitle')}</h2><p class="muted">${tr.t('leads.chart.perStatusIntro')}</p></figcaption>
  <ul class="state-bars">${perStatus.map(({ status, count }) => {
    const href = listFor(status);
    const label = statusLabel(tr, status);
    return html`<li>
      <a class="state-label" href="${href}">${label}</a>
      <svg class="state-track" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true"><rect class="bar bar-${stageOf(status)}" x="0" y="0" width="${(count / top) * 100}" height="10"/></svg>
      <a class="state-count" href="${href}" aria-label="${tr.t('leads.chart.stateCount', { count, state: label.toLowerCase() })}">${tr.number(count)}</a>
    </li>`;
  })}</ul>
  <p class="chart-total"><a href="/dashboard/leads?status=all">${tr.t('leads.chart.allLink', { total })}</a></p>
</figure>`;
}
