/**
 * What both pages share: the header (who is signed in, the pages, sign out) and the sign-in form
 * shown instead of the page to someone not signed in.
 */
import { api, errorText, useCsrf } from './api.js';
import { fill, h } from './dom.js';

const PAGES = [
  { path: '/', label: 'Approvals' },
  { path: '/dashboard', label: 'Refusals' },
];

/**
 * Starts a page: shows the sign-in form until someone is signed in, then the header and
 * `render(main, session)`.
 */
export async function startPage(render) {
  const main = document.getElementById('main');
  const header = document.getElementById('top');
  const session = await api('GET', '/api/session');
  if (!session.ok) {
    fill(header, brand());
    return showSignIn(main, () => location.reload());
  }
  useCsrf(session.data.csrf);
  fill(header, brand(), navigation(), whoIsIn(session.data));
  render(main, session.data);
}

/** Replaces the page with the sign-in form (after the session ended). */
export function sessionEnded() {
  const main = document.getElementById('main');
  fill(document.getElementById('top'), brand());
  showSignIn(main, () => location.reload(), 'Your session ended. Sign in again.');
}

function brand() {
  return h(
    'p',
    { class: 'brand' },
    h('span', { class: 'brand-mark', 'aria-hidden': 'true' }, '◆'),
    ' Toolgate console',
  );
}

function navigation() {
  return h(
    'nav',
    { 'aria-label': 'Pages' },
    h(
      'ul',
      {},
      PAGES.map(({ path, label }) =>
        h(
          'li',
          {},
          h(
            'a',
            { href: path, ...(location.pathname === path ? { 'aria-current': 'page' } : {}) },
            label,
          ),
        ),
      ),
    ),
  );
}

function whoIsIn(who) {
  const signOut = async () => {
    await api('DELETE', '/api/session');
    location.reload();
  };
  return h(
    'div',
    { class: 'who' },
    h(
      'span',
      {},
      'Signed in as ',
      h('strong', { text: who.subject }),
      ` (${who.tenant}; ${who.roles.join(', ') || 'no role'})`,
    ),
    h('button', { type: 'button', class: 'quiet', onclick: signOut }, 'Sign out'),
  );
}

async function showSignIn(main, signedIn, notice) {
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' }, notice ?? '');
  const send = async (body) => {
    status.textContent = 'Signing in…';
    const answer = await api('POST', '/api/session', body);
    if (answer.ok) return signedIn();
    status.textContent = errorText(answer);
  };
  const token = h('textarea', {
    id: 'token',
    name: 'token',
    rows: 4,
    required: true,
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const form = h(
    'form',
    {
      class: 'sign-in',
      onsubmit: (event) => {
        event.preventDefault();
        void send({ token: token.value.trim() });
      },
    },
    h('label', { for: 'token' }, 'Session token'),
    h(
      'p',
      { class: 'hint', id: 'token-hint' },
      'Paste the session token your identity provider or `toolgate token` gave you. It stays on the console server.',
    ),
    token,
    h('button', { type: 'submit' }, 'Sign in'),
  );
  token.setAttribute('aria-describedby', 'token-hint');
  const dev = await devSignIns(send);
  fill(
    main,
    h(
      'section',
      { class: 'panel narrow', 'aria-labelledby': 'sign-in-title' },
      h('h1', { id: 'sign-in-title' }, 'Sign in'),
      status,
      form,
      dev,
    ),
  );
}

async function devSignIns(send) {
  const answer = await api('GET', '/api/dev-sign-ins');
  const signIns = answer.ok ? answer.data.signIns : [];
  if (signIns.length === 0) return null;
  return h(
    'section',
    { class: 'dev', 'aria-labelledby': 'dev-title' },
    h('h2', { id: 'dev-title' }, 'Development sign-in'),
    h('p', {}, 'For development only: these sign in without a token of your own.'),
    h(
      'ul',
      { class: 'dev-list' },
      signIns.map(({ index, label }) =>
        h(
          'li',
          {},
          h(
            'button',
            { type: 'button', onclick: () => void send({ devSignIn: index }) },
            `Development sign-in: ${label}`,
          ),
        ),
      ),
    ),
  );
}
