/**
 * Deciding several calls at once: the toolbar that counts the selected cards, previews them and
 * sends one bulk decision. The console's server checks again that they are of one run and one tool
 * and still waiting; each is decided on the card shown.
 */
import { api, errorText } from './api.js';
import { rightsOf } from './card.js';
import { askBulk } from './dialogs.js';
import { h } from './dom.js';

/**
 * The toolbar over the inbox's `state` (`cards`, `elements`, `selected`): `node`, `refresh()`
 * after the cards or the selection changed, and `say(text)` for a message about the selection.
 */
export function bulkToolbar(state) {
  const count = h('span', { class: 'count' });
  const message = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const decide = h(
    'button',
    { type: 'button', onclick: () => void bulkDecide(state, message) },
    'Decide selected…',
  );
  const node = h(
    'div',
    { class: 'bulk', role: 'group', 'aria-label': 'Bulk decision' },
    count,
    decide,
    message,
  );
  const refresh = () => {
    for (const id of state.selected) if (!state.cards.has(id)) state.selected.delete(id);
    count.textContent = `${state.selected.size} selected`;
    decide.disabled = state.selected.size === 0;
    node.hidden = state.cards.size < 2 && state.selected.size === 0;
  };
  const say = (text) => {
    message.textContent = text;
    refresh();
  };
  refresh();
  return { node, refresh, say };
}

async function bulkDecide(state, message) {
  const cards = [...state.selected]
    .map((id) => state.cards.get(id))
    .filter((c) => c !== undefined && rightsOf(c).canReject);
  if (cards.length === 0) return;
  const choice = await askBulk(cards);
  if (choice === null) return;
  message.textContent = 'Sending…';
  const items = cards.map((c) => ({ confirmationId: c.confirmationId, digest: c.digest }));
  const answer = await api('POST', '/api/bulk', { ...choice, items });
  if (!answer.ok) {
    message.textContent = `Not sent: ${errorText(answer)}`;
    return;
  }
  const sent = answer.data.results.filter((r) => r.status >= 200 && r.status < 300).length;
  const what = choice.decision === 'approve' ? 'approvals' : 'rejections';
  message.textContent = `${sent} of ${items.length} ${what} sent.`;
  state.selected.clear();
  for (const node of state.elements.values()) {
    const box = node.querySelector('input[type=checkbox]');
    if (box !== null) box.checked = false;
  }
}
