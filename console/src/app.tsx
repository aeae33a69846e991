// The console: who is signed in (a token of the tab's session storage, or anonymous where
// the service answers without one), the navigation, and the page the URL names.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Problem, request, session, whenUnauthorized } from './api.js';
import { Console } from './context.js';
import { LiveFeed } from './live.js';
import { EntryForm } from './pages/entry-form.js';
import { EntryPage } from './pages/entry-page.js';
import { ChangeLog } from './pages/history.js';
import { ListPage } from './pages/list-page.js';
import { CsvImport } from './pages/csv-import.js';
import { SignIn } from './pages/sign-in.js';
import { WebhookList, WebhookPage } from './pages/webhooks.js';
import { RESOURCES, resourceNamed } from './resources.js';
import { href, useRoute, type Route } from './router.js';
import { TEXTS } from './texts.js';
import { Heading } from './ui.js';

type Access = { state: 'checking' } | { state: 'signed-out'; reason?: string } | { state: 'signed-in'; anonymous: boolean };

function Page(props: { route: Route }) {
  const [first = 'servers', second, third] = props.route.path;
  if (first === 'changes') return <ChangeLog />;
  if (first === 'import') return <CsvImport />;
  if (first === 'webhooks') return second === undefined ? <WebhookList /> : <WebhookPage id={Number(second)} />;
  const resource = resourceNamed(first);
  if (resource === undefined) return <NotFound />;
  if (second === undefined) return <ListPage key={resource.name} resource={resource} />;
  if (second === 'new') return <EntryForm key={`${resource.name}-new`} resource={resource} />;
  const id = Number(second);
  if (!Number.isInteger(id) || id < 1) return <NotFound />;
  if (third === 'edit') return <EntryForm key={`${resource.name}-${id}-edit`} resource={resource} id={id} />;
  return <EntryPage key={`${resource.name}-${id}`} resource={resource} id={id} />;
}

function NotFound() {
  const t = TEXTS[document.documentElement.lang === 'fr' ? 'fr' : 'en'];
  return <Heading>{t.notFound}</Heading>;
}

export function App(props: { lang: string; language: 'en' | 'fr' }) {
  const t = TEXTS[props.language];
  const route = useRoute();
  const [access, setAccess] = useState<Access>({ state: 'checking' });
  const signOut = (reason?: string): void => {
    session.forget();
    setAccess(reason === undefined ? { state: 'signed-out' } : { state: 'signed-out', reason });
  };
  const live = useMemo(() => new LiveFeed((detail) => signOut(detail)), [access.state === 'signed-in']);
  useEffect(() => () => live.stop(), [live]);
  const context = useMemo(() => ({ t, language: props.language, live }), [t, live]);

  const check = (): void => {
    setAccess({ state: 'checking' });
    request('GET', '/config/tags?limit=1', { token: session.token() })
      .then(() => setAccess({ state: 'signed-in', anonymous: session.token() === null }))
      .catch((error) => signOut(error instanceof Problem && session.token() !== null ? error.detail : undefined));
  };
  useEffect(() => {
    whenUnauthorized((detail) => signOut(detail));
    check();
  }, []);

  const [first = 'servers'] = route.path;
  const otherLang = t.otherLanguageName;
  const nav = [
    // Servers first: what operators open most.
    ...[...RESOURCES].sort((a, b) => Number(b.name === 'servers') - Number(a.name === 'servers')).map((resource) => [resource.name, t.resourceNames[resource.name] ?? resource.name] as const),
    ['changes', t.changes] as const,
    ['import', t.importCsv] as const,
    ['webhooks', t.webhooks] as const,
  ];
  return (
    <Console.Provider value={context}>
      <a class="skip" href="#main" onClick={(event) => {
        event.preventDefault();
        document.getElementById('main')?.focus();
      }}>
        {t.skip}
      </a>
      <header class="top">
        <p class="brand">{t.consoleTitle}</p>
        <p class="who">
          {access.state === 'signed-in' && (access.anonymous ? t.anonymous : t.signedInAs)}{' '}
          {access.state === 'signed-in' && !access.anonymous && (
            <button type="button" onClick={() => signOut()}>
              {t.signOut}
            </button>
          )}{' '}
          <a href={`/${otherLang}/console/${location.hash}`} hreflang={otherLang} lang={otherLang}>
            {t.otherLanguage}
          </a>
        </p>
        {access.state === 'signed-in' && (
          <nav aria-label={t.mainNav}>
            <ul>
              {nav.map(([path, label]) => (
                <li key={path}>
                  <a href={href(`/${path}`)} aria-current={first === path ? 'page' : undefined}>
                    {label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        {access.state === 'checking' && <p>{t.checking}</p>}
        {access.state === 'signed-out' && <SignIn reason={access.reason} signedIn={check} />}
        {access.state === 'signed-in' && <Page route={route} />}
      </main>
    </Console.Provider>
  );
}
