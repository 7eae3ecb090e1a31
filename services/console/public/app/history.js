/**
 * The history of decided confirmations (/api/decided), filtered by tool, outcome and who decided,
 * with the cards that expired while this page showed them.
 */
import { api, errorText } from './api.js';
import { fill, h, timeOf } from './dom.js';

const OUTCOMES = ['approved', 'rejected', 'amended', 'expired', 'changed', 'ended'];

/** The history section; `expiredHere()` lists the cards that expired on this page. */
export function historySection(expiredHere) {
  const tool = h('input', { id: 'history-tool', name: 'tool', type: 'text', autocomplete: 'off' });
  const who = h('input', {
    id: 'history-who',
    name: 'decidedBy',
    type: 'text',
    autocomplete: 'off',
  });
  const outcome = h(
    'select',
    { id: 'history-outcome', name: 'outcome' },
    h('option', { value: '' }, 'Any'),
    OUTCOMES.map((o) => h('option', { value: o }, o)),
  );
  const status = h('p', {
    class: 'status',
    role: 'status',
    'aria-live': 'polite',
    id: 'history-status',
  });
  const list = h('ul', { class: 'history', id: 'history-list' });
  const filters = () => ({
    tool: tool.value.trim(),
    outcome: outcome.value,
    decidedBy: who.value.trim(),
  });
  let decided = [];
  const render = () => {
    const f = filters();
    const rows = [...expiredHere(), ...decided].filter(
      (d) =>
        (f.tool === '' || d.tool === f.tool) &&
        (f.outcome === '' || d.outcome === f.outcome) &&
        (f.decidedBy === '' || d.decidedBy === f.decidedBy),
    );
    fill(
      list,
      rows.length === 0 ? h('li', { class: 'empty' }, 'Nothing decided matches.') : rows.map(entry),
    );
  };
  const load = async () => {
    const f = filters();
    const query = new URLSearchParams(Object.entries(f).filter(([, v]) => v !== ''));
    const text = query.toString();
    const answer = await api('GET', `/api/decided${text === '' ? '' : `?${text}`}`);
    if (answer.ok) {
      decided = answer.data.confirmations;
      status.textContent = '';
    } else {
      decided = [];
      status.textContent = `History unavailable: ${errorText(answer)}`;
    }
    render();
  };
  const form = h(
    'form',
    {
      class: 'filters',
      onsubmit: (event) => {
        event.preventDefault();
        void load();
      },
    },
    field('history-tool', 'Tool', tool),
    field('history-outcome', 'Outcome', outcome),
    field('history-who', 'Decided by', who),
    h('button', { type: 'submit' }, 'Filter'),
  );
  const node = h(
    'section',
    { class: 'panel', 'aria-labelledby': 'history-title' },
    h('h2', { id: 'history-title' }, 'History'),
    form,
    status,
    list,
  );
  void load();
  return { node, addExpired: render };
}

function field(id, label, control) {
  return h('div', { class: 'field' }, h('label', { for: id }, label), control);
}

function entry(d) {
  const who = d.decidedBy === undefined ? '' : ` by ${d.decidedBy}`;
  return h(
    'li',
    { class: `decided ${d.outcome}`, 'data-confirmation-id': d.confirmationId },
    h('span', { class: `badge ${d.outcome}` }, d.outcome),
    ' ',
    h('strong', {}, d.card?.action ?? d.tool),
    ` ${d.card?.target ?? ''} — run ${d.runId}, asked by ${d.requestedBy}${who}, ${timeOf(d.decidedAt)}`,
    d.reason === undefined ? null : h('span', { class: 'reason' }, ` Reason: ${d.reason}`),
  );
}
