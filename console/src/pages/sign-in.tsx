// Sign-in: a token, tried on a read of the API before it is kept (in the tab's session storage
// only). A refusal (unknown, expired, revoked) is shown in the service's words.
import { useState } from 'preact/hooks';
import { Problem, request, session } from '../api.js';
import { useConsole } from '../context.js';
import { Heading } from '../ui.js';

export function SignIn(props: { reason: string | undefined; signedIn: () => void }) {
  const { t } = useConsole();
  const [token, setToken] = useState('');
  const [refusal, setRefusal] = useState<string | undefined>(props.reason);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    setBusy(true);
    const tried = token.trim();
    try {
      await request('GET', '/config/tags?limit=1', { token: tried });
      session.keep(tried);
      setToken('');
      props.signedIn();
    } catch (error) {
      setRefusal(error instanceof Problem ? error.detail || `${error.status} ${error.code}` : String(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="sign-in">
      <Heading>{t.signInTitle}</Heading>
      {refusal !== undefined && refusal !== '' && (
        <div class="problem" role="alert">
          <strong>{t.signInRefused}{t.colon}</strong> {refusal}
        </div>
      )}
      <form onSubmit={submit}>
        <div class="field">
          <label for="token">{t.token}</label>
          <input id="token" type="password" autoComplete="off" required value={token} onInput={(event) => setToken((event.target as HTMLInputElement).value)} aria-describedby="token-help" />
          <small id="token-help" class="hint">
            {t.signInHelp}
          </small>
        </div>
        <div class="buttons">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? t.checking : t.signIn}
          </button>
        </div>
      </form>
    </section>
  );
}
