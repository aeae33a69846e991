// The console's entry point: the page names its language in its path (/{lang}/console/) and
// in <html lang>; the API is called under the same language, so that refusals read in it too.
import { render } from 'preact';
import { useLanguagePath } from './api.js';
import { App } from './app.js';
import './styles.css';

const root = document.getElementById('console')!;
const lang = root.dataset.lang ?? 'en';
const language = document.documentElement.lang === 'fr' ? 'fr' : 'en';
useLanguagePath(lang);
root.textContent = '';
render(<App lang={lang} language={language} />, root);
