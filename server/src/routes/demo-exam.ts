import { Type } from 'typebox';
import { McTokenRedeemBody, TESTER_STATUS } from '../../../contract/tester';
import type { App } from '../lib/app-types';
import { mcTokenInvalid, redeemMcToken } from '../lib/tester/mc-token';
import { perIpLimit } from '../lib/db-rate-limit';

/** Where the built-in demo exam lives (the demo data's exam_url, and the default in demo mode). */
export const DEMO_EXAM_PATH = '/demo-exam/';

type Lang = 'ja' | 'en';

interface Question {
  text: string;
  choices: string[];
}

interface PageText {
  title: string;
  intro: string;
  /** While the exam-system token is being checked. */
  checking: string;
  /** {name}, {loginId} and {exam} are filled in by exam.js from redeem_mc_token. */
  signedIn: string;
  /** The token was used already, expired, or the sitting is finished. */
  tokenInvalid: string;
  /** The page was opened without a token. */
  noToken: string;
  /** The token could not be checked (network). */
  checkFailed: string;
  finish: string;
  /** Shown after finishing; {answered} is filled in by exam.js. */
  done: string;
  unanswered: string;
  questions: Question[];
}

const TEXT: Record<Lang, PageText> = {
  ja: {
    title: 'デモ試験',
    intro:
      'これは監視付き受験の流れを試すためのデモ試験です。問題に解答し、最後に「解答を終了する」ボタンを押してください。監視画面は閉じないでください。',
    checking: '試験システムへのログインを確認しています…',
    signedIn: '受験者：{name}（{loginId}）　試験：{exam}',
    tokenInvalid:
      'この試験システムへのリンクは使用済みか、有効期限が切れています。監視画面に戻り、「試験システムにログイン」から開き直してください。',
    noToken: 'このページは、監視画面の「試験システムにログイン」から開いてください。',
    checkFailed:
      '試験システムへのログインを確認できませんでした。通信状態を確認し、監視画面から開き直してください。',
    finish: '解答を終了する',
    done: '{answered}問の解答を受け付けました。このウィンドウを閉じ、監視画面で終了の操作をしてください。',
    unanswered: '未解答の問題があります。すべての問題に解答してください。',
    questions: [
      { text: '日本の首都はどこですか。', choices: ['大阪', '東京', '京都'] },
      { text: '12 × 12 はいくつですか。', choices: ['124', '132', '144'] },
      { text: '1気圧のもとで水が沸騰する温度は何度ですか。', choices: ['90℃', '100℃', '110℃'] },
    ],
  },
  en: {
    title: 'Demo exam',
    intro:
      'This is a demo exam for trying the proctored exam flow. Answer the questions, then press "Finish". Do not close the monitoring window.',
    checking: 'Checking your sign-in to the exam system…',
    signedIn: 'Examinee: {name} ({loginId})   Exam: {exam}',
    tokenInvalid:
      'This link to the exam system was already used or has expired. Go back to the monitoring window and open it again with "Log in to the exam system".',
    noToken: 'Open this page from the monitoring window with "Log in to the exam system".',
    checkFailed:
      'Your sign-in to the exam system could not be checked. Check your connection and open it again from the monitoring window.',
    finish: 'Finish',
    done: 'Your answers to {answered} questions were received. Close this window and end the session on the monitoring screen.',
    unanswered: 'Some questions are unanswered. Please answer every question.',
    questions: [
      { text: 'What is the capital of Japan?', choices: ['Osaka', 'Tokyo', 'Kyoto'] },
      { text: 'What is 12 × 12?', choices: ['124', '132', '144'] },
      {
        text: 'At what temperature does water boil at one atmosphere?',
        choices: ['90 °C', '100 °C', '110 °C'],
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
<p id="who" role="status" aria-live="polite" data-checking="${esc(t.checking)}" data-signed-in="${esc(t.signedIn)}" data-invalid="${esc(t.tokenInvalid)}" data-no-token="${esc(t.noToken)}" data-failed="${esc(t.checkFailed)}">${esc(t.checking)}</p>
<p>${esc(t.intro)}</p>
<form id="exam" hidden data-done="${esc(t.done)}" data-unanswered="${esc(t.unanswered)}" novalidate>
<div id="questions"></div>
<p><button type="submit" id="finish">${esc(t.finish)}</button></p>
</form>
<p id="result" role="status" aria-live="polite"></p>
</main>
</body>
</html>
`;
}

// Served as a file because the CSP allows scripts only from this origin (script-src 'self'), never inline.
// The exam system's side of get_mc_token: the token in the address (mc_token for an MC+ start-up, proctor_token
// for a proctor token) is taken out of the address at once and handed to the demo exam's back end
// (POST /demo-exam/session), which redeems it once, as an exam system's server would with redeem_mc_token.php,
// and only then sends the questions. The page holds no question before that and no answer ever. A used or
// expired token shows why and shows no questions.
const EXAM_JS = `'use strict';
document.addEventListener('DOMContentLoaded', function () {
  var form = document.getElementById('exam');
  var list = document.getElementById('questions');
  var result = document.getElementById('result');
  var who = document.getElementById('who');
  if (!form || !list || !result || !who) return;
  var params = new URLSearchParams(window.location.search);
  var token = params.get('mc_token') || params.get('proctor_token');
  params.delete('mc_token');
  params.delete('proctor_token');
  var rest = params.toString();
  window.history.replaceState(null, '', window.location.pathname + (rest ? '?' + rest : ''));
  function refuse(key) {
    who.textContent = who.getAttribute(key) || '';
    who.className = 'error';
    document.body.setAttribute('data-signed-in', '0');
  }
  function show(questions) {
    for (var i = 0; i < questions.length; i++) {
      var set = document.createElement('fieldset');
      set.className = 'question';
      var legend = document.createElement('legend');
      legend.textContent = (i + 1) + '. ' + questions[i].text;
      set.appendChild(legend);
      for (var j = 0; j < questions[i].choices.length; j++) {
        var label = document.createElement('label');
        var input = document.createElement('input');
        input.type = 'radio';
        input.name = 'q' + i;
        input.value = String(j);
        input.required = true;
        label.appendChild(input);
        label.appendChild(document.createTextNode(' ' + questions[i].choices[j]));
        set.appendChild(label);
      }
      list.appendChild(set);
    }
  }
  if (!token) {
    refuse('data-no-token');
    return;
  }
  fetch('/demo-exam/session', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token: token, lang: document.documentElement.lang }),
    credentials: 'omit',
  })
    .then(function (res) {
      return res.json().then(function (body) {
        return { ok: res.ok, body: body };
      });
    })
    .then(function (r) {
      if (!r.ok || !r.body || !r.body.result) {
        refuse('data-invalid');
        return;
      }
      var g = r.body.result;
      who.textContent = (who.getAttribute('data-signed-in') || '')
        .replace('{name}', g.exam_user_name)
        .replace('{loginId}', g.login_id)
        .replace('{exam}', g.test_name);
      who.className = '';
      show(g.questions);
      form.hidden = false;
      document.body.setAttribute('data-signed-in', '1');
    })
    .catch(function () {
      refuse('data-failed');
    });
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var sets = form.querySelectorAll('fieldset.question');
    for (var i = 0; i < sets.length; i++) {
      if (!sets[i].querySelector('input:checked')) {
        result.textContent = form.getAttribute('data-unanswered') || '';
        return;
      }
    }
    var inputs = form.querySelectorAll('input, button');
    for (var j = 0; j < inputs.length; j++) inputs[j].disabled = true;
    result.textContent = (form.getAttribute('data-done') || '').replace('{answered}', String(sets.length));
    document.body.setAttribute('data-finished', '1');
    if (window.opener) {
      try {
        window.opener.postMessage({ type: 'demo-exam-finished', answered: sets.length }, window.location.origin);
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
#who { font-weight: 600; }
#who.error { color: #b02a37; }
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
  // The demo exam's back end: redeems the token once (as an exam system's server calls redeem_mc_token.php)
  // and answers who is signed in and the questions, in the page's language. The exam runs only for a sitting
  // ready for it (4 before exam, 5 examing, 6 interrupted).
  app.post<{ Body: { token: string; lang?: Lang } }>(
    '/demo-exam/session',
    {
      // Limited per address, counted in the database (every instance), so tokens cannot be guessed in bulk.
      onRequest: perIpLimit(app, {
        scope: 'demo_exam_ip',
        max: 60,
        windowSeconds: 60,
        message: 'Too many one-time token redemptions from this address.',
      }),
      schema: {
        body: Type.Object({
          token: McTokenRedeemBody.properties.token,
          lang: Type.Optional(Type.Union([Type.Literal('ja'), Type.Literal('en')])),
        }),
      },
    },
    async (request, reply) => {
      const grant = await redeemMcToken(app.db, request.body.token.trim());
      if (
        !grant ||
        grant.tester_status < TESTER_STATUS.beforeExam ||
        grant.tester_status > TESTER_STATUS.interruptionExam
      )
        throw mcTokenInvalid();
      const t = TEXT[request.body.lang ?? grant.lang];
      reply.header('Cache-Control', 'no-store');
      return reply.ok({
        login_id: grant.login_id,
        exam_user_name: grant.exam_user_name,
        test_name: grant.test_name,
        questions: t.questions,
      });
    },
  );
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
