/**
 * The events behind a count (/api/analytics/events): the window and the row's values, newest
 * first. `internalDetail` is shown only when the server gave it (operators).
 */
import { api, errorText } from './api.js';
import { fill, h, timeOf } from './dom.js';

/** The drill-down panel; `open(query)` loads and shows the events of `query`. */
export function drillDown() {
  const body = h('div', { id: 'drill-body' });
  const node = h(
    'section',
    { class: 'panel', 'aria-labelledby': 'drill-title', id: 'drill-down', tabindex: '-1' },
    h('h2', { id: 'drill-title' }, 'Events behind a count'),
    body,
  );
  fill(body, h('p', { class: 'empty' }, 'Choose a count to see the events behind it.'));
  const open = async (query) => {
    const params = new URLSearchParams({ ...query, limit: '50' });
    fill(body, h('p', { class: 'status', role: 'status' }, 'Loading…'));
    node.focus();
    const answer = await api('GET', `/api/analytics/events?${params.toString()}`);
    const about = Object.entries(query)
      .filter(([k]) => k !== 'size' && k !== 'start')
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    const heading = h(
      'p',
      {},
      `${query.size} from ${timeOf(query.start)}${about === '' ? '' : `: ${about}`}`,
    );
    if (!answer.ok) {
      fill(
        body,
        heading,
        h('p', { class: 'empty' }, `Drill-down unavailable: ${errorText(answer)}`),
      );
      return;
    }
    const { events, complete } = answer.data;
    fill(
      body,
      heading,
      complete === false
        ? h('p', { class: 'notice' }, 'Some of these events were not kept; the newest are shown.')
        : null,
      events.length === 0
        ? h('p', { class: 'empty' }, 'No events.')
        : h('ul', { class: 'events' }, events.map(eventItem)),
    );
  };
  return { node, open };
}

function eventItem(e) {
  const facts = [
    ['at', timeOf(e.at)],
    ['rung', e.rung],
    ['code', e.code],
    ['tool', e.tool],
    ['tenant', e.tenant],
    ['subject', e.subject],
    ['run', e.runId],
  ].filter(([, v]) => v !== null && v !== undefined);
  return h(
    'li',
    {},
    h('p', {}, h('strong', {}, e.kind), ' ', facts.map(([k, v]) => `${k} ${v}`).join(' · ')),
    e.publicMessage === null ? null : h('p', {}, `Told the agent: ${e.publicMessage}`),
    e.internalDetail === undefined
      ? null
      : h('p', { class: 'internal' }, `Internal detail: ${e.internalDetail}`),
  );
}
