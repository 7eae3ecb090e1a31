/**
 * The dialogs of a decision that needs more than a click: rejecting (with a reason), approving
 * with changes (the arguments edited as JSON), and a bulk decision (its items previewed first).
 * Each resolves with what the person chose, or null when they cancelled.
 */
import { freshId, h } from './dom.js';

/** Reasons offered when rejecting; the person may add to them or write their own. */
export const PRESET_REASONS = [
  'The amount or target is wrong',
  'Not expected in this run',
  'Needs more information first',
  'Not allowed by our process',
];

/** Longest reason the approval API takes. */
export const MAX_REASON_CHARS = 280;

/** Opens a modal dialog built by `build(close)`; resolves with what `close` is given. */
function modal(title, build) {
  return new Promise((resolve) => {
    const titleId = freshId('dialog-title');
    const dialog = h('dialog', { 'aria-labelledby': titleId, class: 'dialog' });
    const close = (value) => {
      dialog.close();
      dialog.remove();
      resolve(value);
    };
    dialog.addEventListener('cancel', () => close(null));
    dialog.append(h('h2', { id: titleId }, title), build(close));
    document.body.append(dialog);
    dialog.showModal();
  });
}

/** The reason part of a form: preset choices and free text; returns `{fieldset, reason()}`. */
function reasonFields(required) {
  const name = freshId('reason');
  const textId = freshId('reason-text');
  const text = h('textarea', { id: textId, rows: 3, maxlength: MAX_REASON_CHARS });
  const choices = PRESET_REASONS.map((reason, i) => {
    const id = `${name}-${i}`;
    return h(
      'div',
      { class: 'choice' },
      h('input', { type: 'radio', name, id, value: reason }),
      h('label', { for: id }, reason),
    );
  });
  const fieldset = h(
    'fieldset',
    {},
    h('legend', {}, required ? 'Reason (required)' : 'Reason (optional)'),
    choices,
    h('label', { for: textId }, 'In your words'),
    text,
  );
  const reason = () => {
    const preset = fieldset.querySelector('input[type=radio]:checked')?.value ?? '';
    const own = text.value.trim();
    return [preset, own]
      .filter((p) => p !== '')
      .join(': ')
      .slice(0, MAX_REASON_CHARS);
  };
  return { fieldset, reason };
}

function buttons(close, submitLabel) {
  return h(
    'div',
    { class: 'actions' },
    h('button', { type: 'submit', class: 'primary' }, submitLabel),
    h('button', { type: 'button', onclick: () => close(null) }, 'Cancel'),
  );
}

/** Asks why `card` is rejected; resolves with the reason or null. */
export function askRejection(card) {
  return modal(`Reject “${card.card.action}”`, (close) => {
    const { fieldset, reason } = reasonFields(true);
    const problem = h('p', { class: 'problem', role: 'alert' });
    return h(
      'form',
      {
        onsubmit: (event) => {
          event.preventDefault();
          const text = reason();
          if (text === '') {
            problem.textContent = 'Choose or write a reason: the agent is told it.';
            return;
          }
          close(text);
        },
      },
      h('p', {}, card.card.target),
      fieldset,
      problem,
      buttons(close, 'Reject'),
    );
  });
}

/** Asks for the changed arguments of `card`; resolves with `{args, reason}` or null. */
export function askAmendment(card) {
  return modal(`Approve “${card.card.action}” with changes`, (close) => {
    const argsId = freshId('args');
    const args = h('textarea', { id: argsId, rows: 8, spellcheck: 'false', class: 'code' });
    args.value = JSON.stringify(card.args ?? {}, null, 2);
    const { fieldset, reason } = reasonFields(false);
    const problem = h('p', { class: 'problem', role: 'alert' });
    return h(
      'form',
      {
        onsubmit: (event) => {
          event.preventDefault();
          let parsed;
          try {
            parsed = JSON.parse(args.value);
          } catch {
            parsed = undefined;
          }
          if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
            problem.textContent = 'The arguments must be a JSON object.';
            return;
          }
          const text = reason();
          close({ args: parsed, ...(text === '' ? {} : { reason: text }) });
        },
      },
      h(
        'p',
        { class: 'notice' },
        'The changed call is a new proposal: it is checked on every rung again and waits for its own approval. This card is rejected.',
      ),
      h('label', { for: argsId }, 'Arguments (JSON)'),
      args,
      fieldset,
      problem,
      buttons(close, 'Send as a new proposal'),
    );
  });
}

/** Shows the items of a bulk decision; resolves with `{decision, reason?}` or null. */
export function askBulk(cards) {
  return modal(`Decide ${cards.length} calls at once`, (close) => {
    const name = freshId('decision');
    const { fieldset, reason } = reasonFields(false);
    const problem = h('p', { class: 'problem', role: 'alert' });
    const decision = (value, label, checked) =>
      h(
        'div',
        { class: 'choice' },
        h('input', { type: 'radio', name, id: `${name}-${value}`, value, checked }),
        h('label', { for: `${name}-${value}` }, label),
      );
    const [first] = cards;
    return h(
      'form',
      {
        onsubmit: (event) => {
          event.preventDefault();
          const chosen = event.target.querySelector(`input[name="${name}"]:checked`)?.value;
          const text = reason();
          if (chosen === 'reject' && text === '') {
            problem.textContent = 'Choose or write a reason for rejecting them.';
            return;
          }
          close({ decision: chosen, ...(chosen === 'reject' ? { reason: text } : {}) });
        },
      },
      h('p', {}, `Run ${first.runId}, tool ${first.tool}. Each call is decided on the card shown:`),
      h(
        'ul',
        { class: 'bulk-items' },
        cards.map((c) => h('li', {}, `${c.card.action}: ${c.card.target}`)),
      ),
      h(
        'fieldset',
        {},
        h('legend', {}, 'Decision'),
        decision('approve', 'Approve all', true),
        decision('reject', 'Reject all', false),
      ),
      fieldset,
      problem,
      buttons(close, 'Decide'),
    );
  });
}
