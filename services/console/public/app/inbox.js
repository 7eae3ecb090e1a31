/**
 * The approvals inbox: the calls waiting for this person (and their own requests), live from
 * /api/pending/stream, decided one by one or in bulk; and the history of decided ones.
 */
import { api, errorText } from './api.js';
import { cardElement } from './card.js';
import { bulkToolbar } from './bulk.js';
import { askAmendment, askRejection } from './dialogs.js';
import { fill, h } from './dom.js';
import { historySection } from './history.js';
import { sessionEnded, startPage } from './page.js';

/** The inbox's state: the cards shown, their elements, the selection for a bulk decision. */
const state = {
  cards: new Map(),
  elements: new Map(),
  selected: new Set(),
  expired: [],
};

/** Says why a card cannot join the bulk selection. */
let bulkMessage = () => undefined;

/** Says what became of a decision at the page level too: its card may leave the list at once. */
let announce = () => undefined;

void startPage((main) => {
  const list = h('div', { class: 'cards', id: 'pending-list' });
  const empty = h('p', { class: 'empty', id: 'pending-empty' }, 'Nothing is waiting for you.');
  const decisions = h('p', {
    class: 'status',
    role: 'status',
    'aria-live': 'polite',
    id: 'decision-status',
  });
  announce = (text) => {
    decisions.textContent = text;
  };
  const live = h(
    'p',
    { class: 'status', role: 'status', 'aria-live': 'polite', id: 'pending-status' },
    'Connecting…',
  );
  const bulkBar = bulkToolbar(state);
  bulkMessage = bulkBar.say;
  const history = historySection(() => state.expired);
  fill(
    main,
    h(
      'section',
      { class: 'panel', 'aria-labelledby': 'pending-title' },
      h('h1', { id: 'pending-title' }, 'Waiting for a decision'),
      live,
      decisions,
      bulkBar.node,
      empty,
      list,
    ),
    history.node,
  );
  follow({ list, empty, live, bulkBar, history });
  setInterval(() => tick({ list, empty, bulkBar, history }), 1000);
});

/** Reads the pending stream; a new list replaces the cards that changed. */
function follow(view) {
  const source = new EventSource('/api/pending/stream');
  source.addEventListener('pending', (event) => {
    const list = JSON.parse(event.data);
    view.live.textContent =
      list.complete === false ? 'Showing the first pages of many waiting calls.' : 'Live.';
    show(list.confirmations, view);
  });
  source.addEventListener('upstream_error', (event) => {
    view.live.textContent = `Not current: ${JSON.parse(event.data)?.error?.message ?? 'the approval API failed.'}`;
  });
  source.addEventListener('session_ended', () => {
    source.close();
    sessionEnded();
  });
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED)
      view.live.textContent = 'Disconnected; reload the page.';
    else view.live.textContent = 'Reconnecting…';
  };
}

function show(confirmations, view) {
  const now = Date.now();
  const fresh = new Map(confirmations.map((c) => [c.confirmationId, c]));
  for (const [id, card] of state.cards) {
    // A card that left the list as it expired stays, disabled, until the clock moves it on.
    if (!fresh.has(id) && Date.parse(card.expiresAt) > now + 1000) forget(id);
  }
  for (const [id, card] of fresh) {
    if (Date.parse(card.expiresAt) <= now) continue;
    const before = state.cards.get(id);
    if (before !== undefined && JSON.stringify(before) === JSON.stringify(card)) continue;
    const node = cardElement(card, ACTIONS, state.selected.has(id));
    const old = state.elements.get(id);
    if (old === undefined) view.list.append(node);
    else old.replaceWith(node);
    state.cards.set(id, card);
    state.elements.set(id, node);
  }
  view.empty.hidden = state.cards.size > 0;
  view.bulkBar.refresh();
}

function forget(id) {
  state.elements.get(id)?.remove();
  state.cards.delete(id);
  state.elements.delete(id);
  state.selected.delete(id);
}

/** How long an expired card stays in place, disabled, before it leaves the list (ms). */
const EXPIRED_SHOWN_MS = 3000;

/** Each second: countdowns; an expired card is disabled, goes to the history, then leaves. */
function tick(view) {
  const now = Date.now();
  for (const [id, node] of state.elements) {
    if (!node.update(now)) continue;
    const card = state.cards.get(id);
    if (node.expiredSeenAt === undefined) {
      node.expiredSeenAt = now;
      state.selected.delete(id);
      state.expired.unshift({ ...card, outcome: 'expired', decidedAt: card.expiresAt });
      view.history.addExpired();
    } else if (now - node.expiredSeenAt >= EXPIRED_SHOWN_MS) {
      forget(id);
    }
  }
  view.empty.hidden = state.cards.size > 0;
  view.bulkBar.refresh();
}

/** Shows `text` on the card and at the page level. */
function report(card, status, text) {
  status.textContent = text;
  announce(`${card.card.action} ${card.card.target}: ${text}`);
}

const ACTIONS = {
  async approve(card, status) {
    status.textContent = 'Sending approval…';
    const answer = await api(
      'POST',
      `/api/confirmations/${encodeURIComponent(card.confirmationId)}/approve`,
      { digest: card.digest },
    );
    report(
      card,
      status,
      answer.ok
        ? 'Approval sent; the gate checks it and runs the call.'
        : `Not approved: ${errorText(answer)}`,
    );
  },
  async reject(card, status) {
    const reason = await askRejection(card);
    if (reason === null) return;
    status.textContent = 'Sending rejection…';
    const answer = await api(
      'POST',
      `/api/confirmations/${encodeURIComponent(card.confirmationId)}/reject`,
      { digest: card.digest, reason },
    );
    report(
      card,
      status,
      answer.ok
        ? 'Rejection sent; the agent is told your reason.'
        : `Not rejected: ${errorText(answer)}`,
    );
  },
  async amend(card, status) {
    const amendment = await askAmendment(card);
    if (amendment === null) return;
    status.textContent = 'Sending the changed call…';
    const answer = await api(
      'POST',
      `/api/confirmations/${encodeURIComponent(card.confirmationId)}/amend`,
      { digest: card.digest, ...amendment },
    );
    const run = answer.data?.replacement?.runId;
    const sent = `Sent as a new proposal${run === undefined ? '' : ` in run ${run}`}; it waits for its own approval.`;
    report(card, status, answer.ok ? sent : `Not sent: ${errorText(answer)}`);
  },
  select(card, checked, box) {
    if (!checked) {
      state.selected.delete(card.confirmationId);
    } else {
      const other = [...state.selected]
        .map((id) => state.cards.get(id))
        .find((c) => c !== undefined && (c.runId !== card.runId || c.tool !== card.tool));
      if (other !== undefined) {
        box.checked = false;
        bulkMessage(
          `A bulk decision takes calls of one run and one tool: ${other.runId} / ${other.tool} is selected.`,
        );
        return;
      }
      state.selected.add(card.confirmationId);
    }
    bulkMessage('');
  },
};
