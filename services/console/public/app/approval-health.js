/** Approval health over the last hour (/api/analytics/approvals), where the gate serves it. */
import { api, errorText } from './api.js';
import { fill, h } from './dom.js';

/** Loads approval health into `section`; says so when it is unavailable. */
export async function loadHealth(section) {
  const since = new Date(Date.now() - 3600_000).toISOString();
  const answer = await api('GET', `/api/analytics/approvals?since=${encodeURIComponent(since)}`);
  const title = h('h2', { id: 'health-title' }, 'Approval health, last hour');
  if (!answer.ok) {
    fill(
      section,
      title,
      h('p', { class: 'empty' }, `Approval health unavailable: ${errorText(answer)}`),
    );
    return;
  }
  const a = answer.data;
  const rate = a.approvalRate === null ? '—' : `${Math.round(a.approvalRate * 100)} %`;
  const median = a.medianDecideMs === null ? '—' : `${Math.round(a.medianDecideMs / 1000)} s`;
  fill(
    section,
    title,
    h(
      'dl',
      { class: 'facts health' },
      [
        ['Approval rate', rate],
        ['Median time to decide', median],
        ['Parked', a.parked],
        ['Approved', a.approved],
        ['Rejected', a.rejected],
        ['Expired', a.expired],
        ['Changed', a.changed],
      ].map(([term, value]) => [h('dt', {}, term), h('dd', {}, String(value))]),
    ),
  );
}
