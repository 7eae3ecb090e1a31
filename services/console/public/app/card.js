/**
 * One waiting confirmation as a card: what the call does, its arguments as they will run, what it
 * changes, who asked in which run, the rule and policy version, the time left, and what the person
 * may do with it. Fields the approval API does not give (yet) are left out, never guessed; the
 * approval API decides whether a decision stands.
 */
import { countdownText, freshId, h, shown } from './dom.js';

/** What a person may do with `card` now, as far as the page can tell. */
export function rightsOf(card, now = Date.now()) {
  const expired = Date.parse(card.expiresAt) <= now;
  const caller = card.caller;
  const changed = card.live?.state === 'changed';
  const mayDecide = caller?.mayDecide !== false;
  const ownFourEyes = card.fourEyes === true && caller?.isRequester === true;
  return {
    expired,
    changed,
    showApprove: mayDecide && !ownFourEyes,
    canApprove: mayDecide && !ownFourEyes && !changed && !expired,
    canReject: mayDecide && !expired,
  };
}

/**
 * The card's element; `actions` are `{approve, reject, amend, select}` callbacks. The element's
 * `update(now)` refreshes the countdown and disables it once expired.
 */
export function cardElement(card, actions, selected) {
  const titleId = freshId('card-title');
  const rights = rightsOf(card);
  const countdown = h('span', { class: 'countdown' });
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const approve = rights.showApprove
    ? h(
        'button',
        {
          type: 'button',
          class: 'primary',
          disabled: !rights.canApprove,
          onclick: () => actions.approve(card, status),
        },
        'Approve',
      )
    : null;
  if (approve !== null) approve.setAttribute('aria-describedby', titleId);
  const reject = rights.canReject
    ? h('button', { type: 'button', onclick: () => actions.reject(card, status) }, 'Reject…')
    : null;
  const amend =
    rights.canReject && card.args !== undefined
      ? h(
          'button',
          { type: 'button', onclick: () => actions.amend(card, status) },
          'Approve with changes…',
        )
      : null;
  const select = h('input', {
    type: 'checkbox',
    checked: selected,
    'aria-label': `Select “${card.card.action}” on ${card.card.target} for a bulk decision`,
    onchange: (event) => actions.select(card, event.target.checked, event.target),
  });
  const node = h(
    'article',
    { class: 'card', 'aria-labelledby': titleId, 'data-confirmation-id': card.confirmationId },
    h('div', { class: 'card-head' }, select, h('h3', { id: titleId }, card.card.action)),
    h('p', { class: 'target' }, card.card.target),
    h('p', { class: 'effect' }, card.card.effect),
    notices(card),
    details(card, countdown),
    changesOf(card),
    card.args === undefined ? null : block('Arguments as they will run', shown(card.args)),
    card.card.preview === null || card.card.preview === undefined
      ? null
      : block('Preview', shown(card.card.preview)),
    h('div', { class: 'actions' }, approve, reject, amend),
    status,
  );
  const controls = [approve, reject, amend, select].filter((c) => c !== null);
  node.update = (now) => {
    const left = Date.parse(card.expiresAt) - now;
    countdown.textContent = countdownText(left);
    if (left > 0) return false;
    for (const control of controls) control.disabled = true;
    node.classList.add('expired');
    status.textContent = 'Expired: nobody decided in time. It moves to the history.';
    return true;
  };
  node.update(Date.now());
  return node;
}

function notices(card) {
  const list = [];
  if (card.live?.state === 'changed') {
    list.push(
      h(
        'p',
        { class: 'notice warn', role: 'alert' },
        'This call changed since it was shown: its objects or policy are not what this card says. Approving is disabled; the card will be shown again as it is now.',
      ),
    );
  }
  if (card.live?.state === 'unavailable') {
    list.push(
      h('p', { class: 'notice warn' }, `This call cannot be rebuilt now: ${card.live.reason}`),
    );
  }
  if (card.fourEyes === true) {
    const own = card.caller?.isRequester === true;
    list.push(
      h(
        'p',
        { class: 'notice' },
        own
          ? 'Four eyes: you asked for this call, so someone else must approve it.'
          : 'Four eyes: the person who asked cannot approve it.',
      ),
    );
  } else if (card.caller?.isRequester === true) {
    list.push(h('p', { class: 'notice' }, 'You asked for this call.'));
  }
  if (card.caller?.mayDecide === false) {
    list.push(h('p', { class: 'notice' }, 'You may see this call but not decide it.'));
  }
  return list;
}

function details(card, countdown) {
  const rows = [
    ['Tool', card.tool],
    ['Asked by', card.requestedBy],
    ['Run', card.runId],
    ['Rule', card.rule],
    ['Policy version', card.policyVersion],
    ['Expires in', countdown],
  ].filter(([, value]) => value !== undefined);
  return h(
    'dl',
    { class: 'facts' },
    rows.map(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
  );
}

function changesOf(card) {
  const changes = card.card.changes ?? card.live?.card?.changes;
  if (!Array.isArray(changes) || changes.length === 0) return null;
  return h(
    'table',
    { class: 'changes' },
    h('caption', {}, 'What changes'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'Field'),
        h('th', { scope: 'col' }, 'Before'),
        h('th', { scope: 'col' }, 'After'),
      ),
    ),
    h(
      'tbody',
      {},
      changes.map((c) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, c.field),
          h('td', {}, c.before ?? '(none)'),
          h('td', {}, c.after),
        ),
      ),
    ),
  );
}

function block(title, text) {
  return h(
    'figure',
    { class: 'block' },
    h('figcaption', {}, title),
    h('pre', { tabindex: '0' }, text),
  );
}
