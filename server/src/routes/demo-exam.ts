import type { App } from '../lib/app-types';

type Lang = 'ja' | 'en';

interface Question {
  text: string;
  choices: string[];
  /** Index of the right choice. */
  answer: number;
}

interface PageText {
  title: string;
  intro: string;
  finish: string;
  /** Shown after finishing; {correct} and {total} are filled in by exam.js. */
  done: string;
  unanswered: string;
  questions: Question[];
}

const TEXT: Record<Lang, PageText> = {
  ja: {
    title: 'デモ試験',
    intro:
      'これは監視付き受験の流れを試すためのデモ試験です。問題に解答し、最後に「解答を終了する」ボタンを押してください。監視画面は閉じないでください。',
    finish: '解答を終了する',
    done: '解答を受け付けました（{total}問中{correct}問正解）。このウィンドウを閉じ、監視画面で終了の操作をしてください。',
    unanswered: '未解答の問題があります。すべての問題に解答してください。',
    questions: [
      { text: '日本の首都はどこですか。', choices: ['大阪', '東京', '京都'], answer: 1 },
      { text: '12 × 12 はいくつですか。', choices: ['124', '132', '144'], answer: 2 },
      { text: '1気圧のもとで水が沸騰する温度は何度ですか。', choices: ['90℃', '100℃', '110℃'], answer: 1 },
    ],
  },
  en: {
    title: 'Demo exam',
    intro:
      'This is a demo exam for trying the proctored exam flow. Answer the questions, then press "Finish". Do not close the monitoring window.',
    finish: 'Finish',
    done: 'Your answers were received ({correct} of {total} correct). Close this window and end the session on the monitoring screen.',
    unanswered: 'Some questions are unanswered. Please answer every question.',
    questions: [
      { text: 'What is the capital of Japan?', choices: ['Osaka', 'Tokyo', 'Kyoto'], answer: 1 },
      { text: 'What is 12 × 12?', choices: ['124', '132', '144'], answer: 2 },
      {
        text: 'At what temperature does water boil at one atmosphere?',
        choices: ['90 °C', '100 °C', '110 °C'],
        answer: 1,
      },
    ],
  },
};

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The demo exam page in one language; all text is fixed above, so nothing from the request reaches it. */
export function demoExamPage(lang: Lang): string {
  const t = TEXT[lang];
  const questions = t.questions
    .map(
      (q, i) => `<fieldset class="question" data-answer="${q.answer}">
<legend>${i + 1}. ${esc(q.text)}</legend>
${q.choices
  .map((c, j) => `<label><input type="radio" name="q${i}" value="${j}" required> ${esc(c)}</label>`)
  .join('\n')}
</fieldset>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(t.title)}</title>
<link rel="stylesheet" href="/demo-exam/exam.css">
<script src="/demo-exam/exam.js" defer></script>
</head>
<body>
<main>
<h1>${esc(t.title)}</h1>
<p>${esc(t.intro)}</p>
<form id="exam" data-done="${esc(t.done)}" data-unanswered="${esc(t.unanswered)}" novalidate>
${questions}
<p><button type="submit" id="finish">${esc(t.finish)}</button></p>
</form>
<p id="result" role="status" aria-live="polite"></p>
</main>
</body>
</html>
`;
}

// Served as a file because the CSP allows scripts only from this origin (script-src 'self'), never inline.
const EXAM_JS = `'use strict';
document.addEventListener('DOMContentLoaded', function () {
  var form = document.getElementById('exam');
  var result = document.getElementById('result');
  if (!form || !result) return;
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var sets = form.querySelectorAll('fieldset.question');
    var correct = 0;
    for (var i = 0; i < sets.length; i++) {
      var chosen = sets[i].querySelector('input:checked');
      if (!chosen) {
        result.textContent = form.getAttribute('data-unanswered') || '';
        return;
      }
      if (chosen.value === sets[i].getAttribute('data-answer')) correct++;
    }
    var inputs = form.querySelectorAll('input, button');
    for (var j = 0; j < inputs.length; j++) inputs[j].disabled = true;
    result.textContent = (form.getAttribute('data-done') || '')
      .replace('{correct}', String(correct))
      .replace('{total}', String(sets.length));
    document.body.setAttribute('data-finished', '1');
    if (window.opener) {
      try {
        window.opener.postMessage({ type: 'demo-exam-finished', correct: correct, total: sets.length }, window.location.origin);
      } catch (e) {
        /* the opener may have navigated elsewhere */
      }
    }
  });
});
`;

const EXAM_CSS = `body { font-family: system-ui, sans-serif; margin: 0; background: #f7f7f9; color: #212529; }
main { max-width: 40rem; margin: 2rem auto; padding: 0 1rem; }
fieldset { border: 1px solid #ced4da; border-radius: 0.375rem; margin: 0 0 1rem; padding: 0.75rem 1rem; background: #fff; }
legend { font-weight: 600; padding: 0 0.25rem; }
label { display: block; padding: 0.25rem 0; }
button { font-size: 1rem; padding: 0.5rem 1.25rem; border: 0; border-radius: 0.375rem; background: #0d6efd; color: #fff; }
button:disabled { background: #6c757d; }
#result { font-weight: 600; }
`;

/**
 * The small demo exam of the demo data (`exam_url` '/demo-exam/'): GET /demo-exam/?lang=ja|en, with its
 * script and style as files.
 */
export default async function demoExamRoutes(app: App): Promise<void> {
  app.get<{ Querystring: { lang?: string } }>('/demo-exam/', async (request, reply) => {
    const lang: Lang = request.query.lang === 'en' ? 'en' : 'ja';
    return reply
      .type('text/html; charset=utf-8')
      .header('Cache-Control', 'no-cache')
      .send(demoExamPage(lang));
  });
  app.get('/demo-exam', async (request, reply) => {
    const q = request.url.indexOf('?');
    return reply.redirect(`/demo-exam/${q >= 0 ? request.url.slice(q) : ''}`, 301);
  });
  app.get('/demo-exam/exam.js', async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('Cache-Control', 'no-cache').send(EXAM_JS),
  );
  app.get('/demo-exam/exam.css', async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('Cache-Control', 'no-cache').send(EXAM_CSS),
  );
}
