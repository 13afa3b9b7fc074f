import type { Db } from './db';
import type { TemplateKind } from '../../../contract/templates';

/**
 * The default templates (template_id 0) in Japanese and English: terms of use, privacy notice, inquiry,
 * examining notice and env-setting term (spec §1, §7). Bodies are sanitised HTML limited to p, h2, h3, ol,
 * ul, li and strong; they are built from the plain structures below so no markup is written by hand.
 */

/** A list item: text, or text with a nested ordered list. */
type Item = string | [string, string[]];
/** A block: a paragraph, an emphasised paragraph ({ strong }), an ordered list ({ ol }) or a bullet list ({ ul }). */
type Block = string | { strong: string } | { ol: Item[] } | { ul: Item[] };
interface Section {
  h: string;
  blocks: Block[];
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function item(i: Item): string {
  if (typeof i === 'string') return `<li>${esc(i)}</li>`;
  return `<li>${esc(i[0])}<ol>${i[1].map((s) => `<li>${esc(s)}</li>`).join('')}</ol></li>`;
}

function block(b: Block): string {
  if (typeof b === 'string') return `<p>${esc(b)}</p>`;
  if ('strong' in b) return `<p><strong>${esc(b.strong)}</strong></p>`;
  if ('ol' in b) return `<ol>${b.ol.map(item).join('')}</ol>`;
  return `<ul>${b.ul.map(item).join('')}</ul>`;
}

function html(intro: Block[], sections: Section[], closing: Section[] = []): string {
  return [
    ...intro.map(block),
    ...[...sections, ...closing].map((s) => `<h2>${esc(s.h)}</h2>${s.blocks.map(block).join('')}`),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------------------
// Terms of use (ja): spec §1, enacted 1 October 2020.

const EXAM_RULES_JA: Item[] = [
  '受験中はウェブカメラとマイクを常に有効にし、顔全体がカメラに映る状態を保ってください。受験中の映像と音声は記録され、試験実施者に提供されます。',
  '使用するモニターは1台だけとし、それ以外のモニターは電源を切るか取り外してください。',
  '映像を加工・変更するソフトウェア（仮想カメラ、背景の加工・ぼかし機能等）及び画面録画ソフトウェアを使用しないでください。',
  'サングラス及びマスクを着用しないでください。',
  '携帯電話・スマートフォンその他の通信機器は電源を切り、手の届かない場所に置いてください。',
  '受験中は、受験室に他の人を入室させないでください。',
  '試験実施者が認めた場合を除き、飲食をしないでください。',
  'ヘッドホン及びイヤホンを使用しないでください。',
  '監視者から求められたときは、ウェブカメラで受験室の周囲を360度映してください。',
  '監視者から求められたときは、顔と本人確認書類を一緒に撮影してください。その際、本人確認書類に記載された個人情報のうち本人確認に必要のないもの（住所、本籍、個人番号等）は、付箋等で隠してください。',
];

const TERMS_JA = html(
  [
    'この利用規約（以下「本規約」といいます。）は、本サービスの運営者（以下「運営者」といいます。）が提供するオンライン監視試験サービス（以下「本サービス」といいます。）の利用条件を定めるものです。本サービスを利用する前に、必ずお読みください。',
  ],
  [
    {
      h: '第1条（適用）',
      blocks: [
        {
          ol: [
            '本規約は、本サービスを利用して試験を受験する方（以下「受験者」といいます。）その他本サービスを利用するすべての方に適用されます。',
            '受験者は、環境設定画面で同意欄にチェックを入れ「次へ」ボタンを押すことにより、本規約に同意したものとみなされます。',
            '試験を実施する団体（以下「試験実施者」といいます。）が別に受験規程等を定めている場合、受験者はそれにも従うものとします。試験の実施方法について本規約と受験規程等が異なるときは、受験規程等が優先します。',
          ],
        },
      ],
    },
    {
      h: '第2条（定義）',
      blocks: [
        '本規約で使用する用語の意味は、次のとおりとします。',
        {
          ol: [
            '「試験実施者」とは、本サービスを利用して試験を実施する大学、資格試験団体、企業その他の団体をいいます。',
            '「監視者」とは、試験実施者又は運営者の委託を受けて、受験中の映像及び音声を確認する者をいいます。',
            '「受験室」とは、受験者が試験を受ける部屋をいいます。',
            '「受験データ」とは、本サービスの利用に伴って取得される映像、音声、静止画像、本人確認書類の画像、チャットの内容、操作及び接続の記録、監視者による記録その他の情報をいいます。',
          ],
        },
      ],
    },
    {
      h: '第3条（本サービスの内容）',
      blocks: [
        '本サービスは、インターネットを通じて次の機能を提供します。',
        {
          ol: [
            'ウェブカメラ及びマイクによる受験中の映像及び音声の送信、録画及び録音',
            '監視者又はAIによる本人確認（顔写真及び本人確認書類の撮影並びに氏名の照合を含みます。）',
            '監視者によるリアルタイムの監視、チャットによる連絡及び不正の疑いがある行為の記録',
            'AIによる録画データの解析（視線、他者の存在、人数、音声等）及び解析結果の試験実施者への提供',
            '前各号に付随する機能',
          ],
        },
        'AIによる判定は参考情報です。不正の有無は、試験実施者が人による確認を経て判断します。',
      ],
    },
    {
      h: '第4条（利用環境及び機器の準備）',
      blocks: [
        {
          ol: [
            '受験者は、自己の費用と責任において、本サービスの利用に必要な機器及び通信環境を準備し、維持するものとします。',
            '必要な機器等は、パーソナルコンピュータ、ウェブカメラ、マイク、運営者が指定するOS及びブラウザ、安定したインターネット接続、並びに運営者が指定する場合は監視用のデスクトップアプリケーションです。',
            '受験者は、試験の開始前に環境設定画面でカメラ、マイク及びポップアップブロックの確認を行い、正常に動作することを確かめるものとします。',
            '受験者は、受験中はパーソナルコンピュータを電源に接続し、OSの自動更新、スリープその他受験を妨げるおそれのある機能を停止するものとします。',
            '受験者の機器又は通信環境の不具合により受験できなかった場合の取扱いは、試験実施者の定めによります。',
          ],
        },
      ],
    },
    {
      h: '第5条（受験室及び受験中のルール）',
      blocks: [
        '受験者は、受験中、次の事項を守らなければなりません。',
        {
          ol: [
            ...EXAM_RULES_JA,
            '監視者からチャット等で指示があったときは、速やかに従ってください。',
            '受験中は、ブラウザの再読み込みボタンを押したり、監視画面を閉じたりしないでください。',
          ],
        },
      ],
    },
    {
      h: '第6条（映像及び音声の送信と記録）',
      blocks: [
        {
          ol: [
            '環境設定画面で本規約に同意し「次へ」ボタンを押した時点から、ウェブカメラの映像及びマイクの音声の送信が始まります。',
            '送信された映像及び音声は、監視者がリアルタイムで確認するほか、録画及び録音され、試験実施者に提供されます。',
            '送信及び記録は、受験者がログアウトするか試験が終了するまで続きます。',
          ],
        },
      ],
    },
    {
      h: '第7条（本人確認）',
      blocks: [
        {
          ol: [
            '受験者は、試験実施者が定める方法により、顔写真及び本人確認書類の撮影による本人確認を受けるものとします。',
            '本人確認は、監視者又はAIが行います。AIによる確認ができなかった場合は、試験実施者の設定に従い、監視者による確認に切り替えるか、ログアウトとなるか、又は撮影した画像を試験実施者が後日確認します。',
            '受験者は、撮影する本人確認書類が本人のものであり、有効なものであることを保証するものとします。',
          ],
        },
      ],
    },
    {
      h: '第8条（禁止事項）',
      blocks: [
        '受験者は、本サービスの利用に当たり、次の行為をしてはなりません。',
        {
          ol: [
            '本人以外の者が受験すること、又は本人以外の者に受験させること',
            '試験実施者が認めていない資料、機器、ウェブサイト又はアプリケーションを参照し、又は使用すること',
            '受験中に他の者から助言を受け、又は他の者と連絡を取ること',
            '試験問題の全部又は一部を撮影、録画、録音、複製又は記録し、又は第三者に開示すること',
            '第5条に定めるルールに違反すること',
            'カメラの向きを変える、カメラを覆う、マイクを切る等の方法により、監視を妨げ、又は免れようとすること',
            '本サービスのプログラムを解析し、改変し、又は本サービスに不正にアクセスすること',
            '本サービスのサーバ又はネットワークに過度の負荷をかけること',
            '虚偽の情報を登録し、又は他人のログインID及びパスワードを使用すること',
            '監視者その他の第三者を誹謗中傷し、又はこれらの者に迷惑をかけること',
            '法令又は公序良俗に反する行為',
            'その他、試験実施者又は運営者が不適切と判断する行為',
          ],
        },
      ],
    },
    {
      h: '第9条（受験の中断及び利用停止）',
      blocks: [
        {
          ol: [
            [
              '運営者、試験実施者又は監視者は、受験者が次のいずれかに該当すると判断したときは、事前に通知することなく、受験の中断、強制ログアウト、本サービスの利用停止その他必要な措置をとることができます。',
              [
                '第8条の禁止事項に該当する行為をしたとき、又はそのおそれがあるとき',
                '本人確認ができないとき、又は本人確認を拒んだとき',
                '監視者の指示に従わないとき',
                '映像又は音声が長時間途絶え、監視を続けられないとき',
                '本規約に違反したとき',
                'その他、公正な試験の実施のために必要と判断したとき',
              ],
            ],
            '前項の措置をとったこと及び監視中に記録された不正の疑いに関する情報は、試験実施者に報告されます。合否その他の判定は、試験実施者が行います。',
            '運営者は、本条の措置により受験者に生じた損害について、運営者に故意又は重大な過失がある場合を除き、責任を負いません。',
          ],
        },
      ],
    },
    {
      h: '第10条（受験データの取扱い）',
      blocks: [
        {
          ol: [
            '運営者は、受験データを、別に定めるプライバシーポリシーに従い適切に取り扱います。',
            [
              '受験データは、次の目的で利用します。',
              [
                '本人確認及び試験の監視',
                '不正行為の検知及び試験実施者による判定の支援',
                '試験実施者への受験記録の提供',
                'お問い合わせ及び障害への対応',
                '本サービスの品質の維持及び向上',
              ],
            ],
            '運営者は、不正検知その他のAI機能の精度を高めるため、受験データから氏名その他の特定の個人を識別できる情報を取り除いたうえで、AIの学習及び評価に利用することがあります。',
            '受験データは、試験実施者が定める保存期間が経過した後、削除します。',
            '運営者は、法令に基づく場合を除き、試験実施者及び業務の委託先以外の第三者に受験データを提供しません。',
          ],
        },
      ],
    },
    {
      h: '第11条（免責及び責任の制限）',
      blocks: [
        {
          ol: [
            '運営者は、本サービスが受験者の特定の目的に適合すること、中断なく動作すること及び不具合がないことを保証しません。',
            '通信回線の障害、受験者の機器の不具合、停電、天災その他運営者の責めに帰すことができない事由により受験できなかった場合、運営者は責任を負いません。',
            '試験の合否、成績及び不正の有無の判定は試験実施者が行うものであり、運営者はこれらについて責任を負いません。',
            '運営者が受験者に対して損害賠償責任を負う場合、その範囲は、運営者に故意又は重大な過失がある場合を除き、直接かつ通常の損害に限られます。',
          ],
        },
      ],
    },
    {
      h: '第12条（本サービスの変更、中断及び終了）',
      blocks: [
        '運営者は、保守、障害への対応その他必要がある場合、本サービスの全部又は一部を変更し、中断し、又は終了することができます。試験の実施期間中にこれを行う場合は、可能な限り事前に試験実施者に通知します。',
      ],
    },
    {
      h: '第13条（知的財産権）',
      blocks: [
        '本サービスに関する著作権その他の知的財産権は、運営者又は正当な権利者に帰属します。試験問題に関する権利は、試験実施者又は正当な権利者に帰属します。',
      ],
    },
    {
      h: '第14条（規約の変更）',
      blocks: [
        '運営者は、民法の定めに従い、本規約を変更することができます。変更後の規約は、その内容及び効力発生日を本サービス上に表示し、効力発生日から適用します。',
      ],
    },
    {
      h: '第15条（準拠法及び管轄裁判所）',
      blocks: [
        '本規約は、日本法に準拠します。本サービスに関して紛争が生じた場合は、運営者の本店所在地を管轄する地方裁判所を第一審の専属的合意管轄裁判所とします。',
      ],
    },
  ],
  [{ h: '附則', blocks: ['本規約は、2020年10月1日に制定し、同日から施行します。'] }],
);

// ---------------------------------------------------------------------------------------------------------
// Terms of use (en).

const EXAM_RULES_EN: Item[] = [
  'Keep your webcam and microphone on at all times, with your whole face in view. Video and audio during the exam are recorded and provided to the exam organiser.',
  'Use one monitor only. Switch off or disconnect any other monitor.',
  'Do not use software that alters or modifies video (virtual cameras, background effects or blurring) or screen-recording software.',
  'Do not wear sunglasses or a mask.',
  'Switch off mobile phones, smartphones and other communication devices, and keep them out of reach.',
  'Do not let anyone else enter the exam room during the exam.',
  'Do not eat or drink unless the exam organiser permits it.',
  'Do not use headphones or earphones.',
  'When a proctor asks, show the whole room (360 degrees) with your webcam.',
  'When a proctor asks, take a photo of your face together with your identity document. Cover any personal data on the document that is not needed to identify you (address, registered domicile, individual number, etc.), for example with a sticky note.',
];

const TERMS_EN = html(
  [
    'These Terms of Use ("Terms") set out the conditions for using the online proctored exam service ("Service") provided by the operator of the Service ("Operator"). Please read them before using the Service.',
  ],
  [
    {
      h: 'Article 1 (Scope)',
      blocks: [
        {
          ol: [
            'These Terms apply to everyone who takes an exam through the Service ("Examinee") and to everyone else who uses the Service.',
            'By ticking the agreement box on the environment-setting screen and pressing the Next button, an Examinee agrees to these Terms.',
            'Where the organisation conducting the exam ("Exam Organiser") has its own exam regulations, Examinees must also follow them. Where these Terms and those regulations differ on how the exam is conducted, the regulations prevail.',
          ],
        },
      ],
    },
    {
      h: 'Article 2 (Definitions)',
      blocks: [
        {
          ol: [
            '"Exam Organiser" means a university, certification body, company or other organisation that conducts an exam through the Service.',
            '"Proctor" means a person who, on behalf of the Exam Organiser or the Operator, watches the video and listens to the audio of an exam.',
            '"Exam Room" means the room in which the Examinee takes the exam.',
            '"Exam Data" means the video, audio, still images, identity-document images, chat messages, operation and connection records, records made by Proctors and other information obtained through the use of the Service.',
          ],
        },
      ],
    },
    {
      h: 'Article 3 (The Service)',
      blocks: [
        'The Service provides the following over the internet:',
        {
          ol: [
            'transmission, video recording and audio recording of the exam through the webcam and microphone;',
            'identity checks by a Proctor or by AI (including photos of the face and of an identity document, and name matching);',
            'live monitoring by Proctors, chat with the Examinee, and recording of suspected misconduct;',
            'AI analysis of recordings (gaze, presence of other people, number of people, voice, etc.) and provision of the results to the Exam Organiser; and',
            'functions incidental to the above.',
          ],
        },
        'AI findings are for reference only. Whether misconduct occurred is decided by the Exam Organiser after review by a person.',
      ],
    },
    {
      h: 'Article 4 (Equipment and Environment)',
      blocks: [
        {
          ol: [
            'Examinees prepare and maintain, at their own cost and responsibility, the equipment and network connection needed to use the Service.',
            'The equipment needed is a personal computer, a webcam, a microphone, an operating system and browser specified by the Operator, a stable internet connection and, where the Operator requires it, the desktop proctoring application.',
            'Before the exam, Examinees check the camera, microphone and pop-up blocking on the environment-setting screen and confirm that they work.',
            'During the exam, Examinees keep the computer connected to mains power and turn off automatic operating-system updates, sleep and any other function that may interrupt the exam.',
            "If an Examinee cannot take the exam because of a fault in their own equipment or connection, the Exam Organiser's rules apply.",
          ],
        },
      ],
    },
    {
      h: 'Article 5 (Exam Room Rules)',
      blocks: [
        'During the exam, Examinees must observe the following:',
        {
          ol: [
            ...EXAM_RULES_EN,
            'Follow promptly any instruction a Proctor gives by chat or otherwise.',
            "Do not press the browser's reload button or close the monitoring screen during the exam.",
          ],
        },
      ],
    },
    {
      h: 'Article 6 (Transmission and Recording of Video and Audio)',
      blocks: [
        {
          ol: [
            'Transmission of webcam video and microphone audio starts when the Examinee agrees to these Terms on the environment-setting screen and presses Next.',
            'The transmitted video and audio are watched live by Proctors, recorded, and provided to the Exam Organiser.',
            'Transmission and recording continue until the Examinee logs out or the exam ends.',
          ],
        },
      ],
    },
    {
      h: 'Article 7 (Identity Checks)',
      blocks: [
        {
          ol: [
            'Examinees undergo an identity check in the way the Exam Organiser specifies, by photographing their face and an identity document.',
            'Identity checks are carried out by a Proctor or by AI. If AI cannot confirm identity, then, as the Exam Organiser has configured, the check passes to a Proctor, the Examinee is logged out, or the Exam Organiser reviews the photos later.',
            'Examinees warrant that the identity document they photograph is their own and valid.',
          ],
        },
      ],
    },
    {
      h: 'Article 8 (Prohibited Acts)',
      blocks: [
        'When using the Service, Examinees must not:',
        {
          ol: [
            "have someone else take the exam in their place, or take it in someone else's place;",
            'consult or use materials, devices, websites or applications that the Exam Organiser has not permitted;',
            'receive help from, or communicate with, anyone else during the exam;',
            'photograph, record, copy or note down any part of the exam questions, or disclose them to anyone;',
            'break the rules in Article 5;',
            'obstruct or evade monitoring, for example by turning or covering the camera or muting the microphone;',
            "analyse or modify the Service's software, or access the Service without authorisation;",
            "place an excessive load on the Service's servers or network;",
            "register false information, or use another person's login ID and password;",
            'defame or harass Proctors or anyone else;',
            'act against the law or public order and morals; or',
            'do anything else the Exam Organiser or the Operator considers inappropriate.',
          ],
        },
      ],
    },
    {
      h: 'Article 9 (Interruption and Suspension)',
      blocks: [
        {
          ol: [
            [
              'The Operator, the Exam Organiser or a Proctor may, without notice, interrupt the exam, force a logout, suspend use of the Service or take other necessary measures if they judge that an Examinee:',
              [
                'has committed, or may commit, a prohibited act under Article 8;',
                'cannot be identified, or refuses an identity check;',
                "does not follow a Proctor's instructions;",
                'has lost video or audio for so long that monitoring cannot continue;',
                'has breached these Terms; or',
                'must be stopped for the exam to be conducted fairly.',
              ],
            ],
            'Such measures, and information about suspected misconduct recorded during monitoring, are reported to the Exam Organiser, who decides on pass or fail and any other outcome.',
            'Except in the case of its wilful misconduct or gross negligence, the Operator is not liable for any loss an Examinee suffers from measures under this Article.',
          ],
        },
      ],
    },
    {
      h: 'Article 10 (Exam Data)',
      blocks: [
        {
          ol: [
            'The Operator handles Exam Data properly in accordance with its separate Privacy Notice.',
            [
              'Exam Data is used to:',
              [
                'check identity and monitor the exam;',
                "detect misconduct and support the Exam Organiser's decisions;",
                'provide exam records to the Exam Organiser;',
                'answer enquiries and deal with faults; and',
                'maintain and improve the Service.',
              ],
            ],
            'To improve the accuracy of misconduct detection and other AI functions, the Operator may use Exam Data for AI training and evaluation after removing names and other information that identifies an individual.',
            'Exam Data is deleted when the retention period set by the Exam Organiser has passed.',
            "Except where the law requires, the Operator does not provide Exam Data to any third party other than the Exam Organiser and the Operator's contractors.",
          ],
        },
      ],
    },
    {
      h: 'Article 11 (Disclaimer and Limitation of Liability)',
      blocks: [
        {
          ol: [
            'The Operator does not warrant that the Service is fit for any particular purpose, that it will run without interruption, or that it is free of defects.',
            "The Operator is not liable if an exam cannot be taken because of network failures, faults in the Examinee's equipment, power cuts, natural disasters or other causes for which the Operator is not responsible.",
            'Pass or fail, scores and findings of misconduct are decided by the Exam Organiser; the Operator is not responsible for them.',
            'Where the Operator is liable to an Examinee for damages, its liability is limited to direct and ordinary loss, except in the case of its wilful misconduct or gross negligence.',
          ],
        },
      ],
    },
    {
      h: 'Article 12 (Changes, Interruption and Termination of the Service)',
      blocks: [
        'The Operator may change, interrupt or end all or part of the Service for maintenance, to deal with faults, or for other necessary reasons. When this affects an exam period, the Operator will notify the Exam Organiser in advance where possible.',
      ],
    },
    {
      h: 'Article 13 (Intellectual Property)',
      blocks: [
        'Copyright and other intellectual property rights in the Service belong to the Operator or the rightful holders. Rights in exam questions belong to the Exam Organiser or the rightful holders.',
      ],
    },
    {
      h: 'Article 14 (Changes to these Terms)',
      blocks: [
        'The Operator may change these Terms in accordance with the Civil Code of Japan. Changed Terms apply from their effective date, which is shown on the Service together with the changes.',
      ],
    },
    {
      h: 'Article 15 (Governing Law and Jurisdiction)',
      blocks: [
        "These Terms are governed by the laws of Japan. The district court with jurisdiction over the Operator's head office has exclusive jurisdiction at first instance over any dispute about the Service.",
      ],
    },
  ],
  [
    {
      h: 'Supplementary Provision',
      blocks: [
        'These Terms were enacted on 1 October 2020 and take effect on the same day. The Japanese text is authoritative.',
      ],
    },
  ],
);

// ---------------------------------------------------------------------------------------------------------
// Privacy notice (ja, en).

const PRIVACY_JA = html(
  [
    '本サービスの運営者（以下「運営者」といいます。）は、オンライン監視試験サービス（以下「本サービス」といいます。）で取り扱う個人情報を、個人情報の保護に関する法律その他の法令に従い、次のとおり取り扱います。',
  ],
  [
    {
      h: '1. 取得する情報',
      blocks: [
        {
          ul: [
            '氏名、ログインID、所属する試験団体その他試験実施者から提供される受験者情報',
            '受験中のウェブカメラの映像、マイクの音声及びこれらから切り出した静止画像',
            '本人確認のために撮影した顔写真及び本人確認書類の画像',
            '監視者とのチャットの内容及び監視者による記録（不正の疑いに関する記録を含みます。）',
            'AIによる本人確認及び録画解析の結果',
            'IPアドレス、OS、ブラウザ、カメラ及びマイクの情報、操作及び接続の記録',
          ],
        },
      ],
    },
    {
      h: '2. 利用目的',
      blocks: [
        {
          ul: [
            '本人確認及び試験の監視のため',
            '不正行為の検知及び試験実施者による判定を支援するため',
            '試験実施者に受験記録を提供するため',
            'お問い合わせへの回答、障害の調査及び不正アクセスの防止のため',
            '本サービスの品質を維持し、向上させるため',
          ],
        },
      ],
    },
    {
      h: '3. AIの学習への利用',
      blocks: [
        '運営者は、不正検知その他のAI機能の精度を高めるため、受験データから氏名、ログインIDその他の特定の個人を識別できる情報を取り除いたうえで、AIの学習及び評価に利用することがあります。',
      ],
    },
    {
      h: '4. 第三者への提供',
      blocks: [
        '受験データは、試験の実施及び判定のため、受験者が受験した試験の試験実施者に提供します。そのほか、法令に基づく場合を除き、本人の同意なく第三者に提供しません。',
      ],
    },
    {
      h: '5. 取扱いの委託',
      blocks: [
        '運営者は、映像の中継及び保存のためのクラウドサービス事業者、監視業務の受託者その他の委託先に、利用目的の達成に必要な範囲で個人情報の取扱いを委託することがあります。この場合、委託先を適切に監督します。',
      ],
    },
    {
      h: '6. 保存期間',
      blocks: [
        '受験データは、試験実施者が定める保存期間の間保存し、期間の経過後に削除します。削除の予定及び実施は記録されます。',
      ],
    },
    {
      h: '7. 安全管理措置',
      blocks: [
        '運営者は、通信の暗号化、パスワードの安全な保存、管理者のアクセス元IPアドレスの制限、アクセス記録の改ざん防止その他の措置により、個人情報を安全に管理します。',
      ],
    },
    {
      h: '8. ブラウザへの保存',
      blocks: [
        '本サービスは、ログイン状態及び起動パラメータをブラウザのセッションストレージに保存します。これらはブラウザのタブを閉じると消去されます。広告を目的とするCookieは使用しません。',
      ],
    },
    {
      h: '9. 開示等の請求及びお問い合わせ',
      blocks: [
        '保有個人データの開示、訂正、利用停止、削除等の請求及び個人情報の取扱いに関するお問い合わせは、お問い合わせ窓口で受け付けます。試験の結果に関する情報は、試験実施者を通じてお問い合わせください。',
      ],
    },
    {
      h: '10. 改定',
      blocks: [
        '運営者は、本ポリシーを改定することがあります。改定後の内容は、本サービス上に表示した時点から適用します。',
      ],
    },
  ],
  [{ h: '附則', blocks: ['2020年10月1日制定'] }],
);

const PRIVACY_EN = html(
  [
    'The operator of the online proctored exam service ("Operator" and "Service") handles personal information obtained through the Service as described below, in accordance with the Act on the Protection of Personal Information of Japan and other applicable laws.',
  ],
  [
    {
      h: '1. Information we collect',
      blocks: [
        {
          ul: [
            'Your name, login ID, exam group and other examinee information provided by the exam organiser.',
            'Webcam video and microphone audio during the exam, and still images taken from them.',
            'Photos of your face and of your identity document taken for identity checks.',
            'Chat messages with proctors and records made by proctors, including records of suspected misconduct.',
            'Results of AI identity checks and AI analysis of recordings.',
            'IP address, operating system, browser, camera and microphone information, and operation and connection records.',
          ],
        },
      ],
    },
    {
      h: '2. Why we use it',
      blocks: [
        {
          ul: [
            'To check identity and monitor the exam.',
            "To detect misconduct and support the exam organiser's decisions.",
            'To provide exam records to the exam organiser.',
            'To answer enquiries, investigate faults and prevent unauthorised access.',
            'To maintain and improve the Service.',
          ],
        },
      ],
    },
    {
      h: '3. Use for AI training',
      blocks: [
        'To improve misconduct detection and other AI functions, the Operator may use exam data for AI training and evaluation after removing names, login IDs and other information that identifies an individual.',
      ],
    },
    {
      h: '4. Disclosure to third parties',
      blocks: [
        'Exam data is provided to the organiser of the exam you took, so that it can conduct and assess the exam. Otherwise it is not disclosed to third parties without your consent, except where the law requires.',
      ],
    },
    {
      h: '5. Contractors',
      blocks: [
        'The Operator may entrust the handling of personal information, as far as needed for these purposes, to cloud providers that relay and store video, to proctoring contractors and to other contractors, and supervises them appropriately.',
      ],
    },
    {
      h: '6. Retention',
      blocks: [
        'Exam data is kept for the retention period set by the exam organiser and deleted when it ends. Planned and completed deletions are logged.',
      ],
    },
    {
      h: '7. Security',
      blocks: [
        'The Operator protects personal information by encrypting communications, storing passwords securely, limiting the IP addresses from which administrators may connect, keeping tamper-evident access logs, and other measures.',
      ],
    },
    {
      h: '8. Browser storage',
      blocks: [
        "The Service keeps your login state and start-up parameters in your browser's session storage; they are erased when you close the browser tab. No advertising cookies are used.",
      ],
    },
    {
      h: '9. Requests and enquiries',
      blocks: [
        'Requests for disclosure, correction, suspension of use or deletion of your personal data, and enquiries about its handling, are accepted through the contact page. For information about your exam result, please contact the exam organiser.',
      ],
    },
    {
      h: '10. Changes',
      blocks: [
        'The Operator may revise this notice. The revised notice applies once it is shown on the Service.',
      ],
    },
  ],
  [{ h: 'Supplementary Provision', blocks: ['Enacted on 1 October 2020.'] }],
);

// ---------------------------------------------------------------------------------------------------------
// Inquiry, examining notice and env-setting term.

const INQUIRY_JA = html(
  [
    '試験の内容、日程、受験資格及び結果に関するお問い合わせは、受験する試験の試験実施者にご連絡ください。',
    '本サービスの操作、カメラやマイクの不具合、接続の問題に関するお問い合わせは、次の情報を添えてお問い合わせ窓口までご連絡ください。',
    {
      ul: [
        'ログインID',
        '試験名及び受験日時',
        'お使いの機器、OS及びブラウザ',
        '発生した状況及び表示されたメッセージ',
      ],
    },
    { strong: '試験中に問題が起きた場合は、まず監視画面のチャットで監視者にお知らせください。' },
  ],
  [],
);

const INQUIRY_EN = html(
  [
    'For questions about the exam content, schedule, eligibility or results, please contact the organiser of your exam.',
    'For questions about using the Service, camera or microphone problems, or connection problems, please contact us with the following information:',
    {
      ul: [
        'Your login ID',
        'The exam name and the date and time of your exam',
        'Your device, operating system and browser',
        'What happened, and any message shown',
      ],
    },
    {
      strong:
        'If a problem occurs during the exam, first tell the proctor using the chat on the monitoring screen.',
    },
  ],
  [],
);

const EXAMINING_JA = html(
  [
    '試験を始める前に、次の注意事項を確認してください。',
    {
      ol: [
        '監視画面（このウィンドウ）は試験が終わるまで閉じないでください。閉じると監視が中断されます。',
        '試験中はウェブカメラとマイクを有効にしたままにし、顔がカメラに映るようにしてください。',
        '試験中は席を離れないでください。やむを得ない場合は、チャットで監視者に知らせてください。',
        '試験実施者が認めていない資料、機器及びウェブサイトは使用しないでください。',
        '監視者から指示があったときは、速やかに従ってください。',
        '試験が終わったら、試験システムで解答を提出してから、この画面で終了の操作をしてください。',
      ],
    },
    '上記に同意のうえ、試験システムにログインしてください。',
  ],
  [],
);

const EXAMINING_EN = html(
  [
    'Before you start the exam, please check the following:',
    {
      ol: [
        'Do not close the monitoring screen (this window) until the exam ends; closing it interrupts monitoring.',
        'Keep your webcam and microphone on, with your face in view of the camera.',
        'Do not leave your seat during the exam. If you must, tell the proctor by chat first.',
        'Do not use materials, devices or websites the exam organiser has not permitted.',
        'Follow promptly any instruction from the proctor.',
        'When you finish, submit your answers in the exam system, then end the session on this screen.',
      ],
    },
    'If you agree, log in to the exam system.',
  ],
  [],
);

const ENV_SETTING_JA = html(
  [
    'この試験は、ウェブカメラとマイクによる監視のもとで行われます。受験中の映像と音声は記録され、試験実施者に提供されます。受験中は次のルールを守ってください。',
    { ol: EXAM_RULES_JA },
    { strong: '同意して「次へ」ボタンを押すと、映像と音声の送信が始まります。' },
  ],
  [],
);

const ENV_SETTING_EN = html(
  [
    'This exam is proctored through your webcam and microphone. Video and audio during the exam are recorded and provided to the exam organiser. Please follow these rules during the exam:',
    { ol: EXAM_RULES_EN },
    { strong: 'When you agree and press Next, transmission of video and audio starts.' },
  ],
  [],
);

interface TemplateSeed {
  kind: TemplateKind;
  lang: 'ja' | 'en';
  title: string;
  body: string;
  footerUrl: string;
}

/** The default template (id 0) of every kind in ja and en. Exported for tests. */
export const DEFAULT_TEMPLATES: readonly TemplateSeed[] = [
  {
    kind: 'terms_of_service',
    lang: 'ja',
    title: 'オンライン監視試験サービス利用規約',
    body: TERMS_JA,
    footerUrl: '/terms',
  },
  {
    kind: 'terms_of_service',
    lang: 'en',
    title: 'Terms of Use of the Online Proctored Exam Service',
    body: TERMS_EN,
    footerUrl: '/terms',
  },
  {
    kind: 'privacy_policy',
    lang: 'ja',
    title: 'プライバシーポリシー',
    body: PRIVACY_JA,
    footerUrl: '/privacy',
  },
  { kind: 'privacy_policy', lang: 'en', title: 'Privacy Notice', body: PRIVACY_EN, footerUrl: '/privacy' },
  { kind: 'inquiry', lang: 'ja', title: 'お問い合わせ', body: INQUIRY_JA, footerUrl: '/inquiry' },
  { kind: 'inquiry', lang: 'en', title: 'Contact', body: INQUIRY_EN, footerUrl: '/inquiry' },
  { kind: 'examining_term', lang: 'ja', title: '試験上の注意', body: EXAMINING_JA, footerUrl: '' },
  { kind: 'examining_term', lang: 'en', title: 'Exam notes', body: EXAMINING_EN, footerUrl: '' },
  {
    kind: 'env_setting_term',
    lang: 'ja',
    title: '監視付き受験に関する同意事項',
    body: ENV_SETTING_JA,
    footerUrl: '',
  },
  {
    kind: 'env_setting_term',
    lang: 'en',
    title: 'Consent to proctored examination',
    body: ENV_SETTING_EN,
    footerUrl: '',
  },
];

/**
 * Inserts the default templates (template_id 0). Existing rows are kept, so a manager's edits survive a
 * restart; with `reset` they are overwritten with the defaults.
 */
export async function seedTemplates(tx: Db, opts: { reset: boolean }): Promise<void> {
  const onConflict = opts.reset
    ? `DO UPDATE SET title = EXCLUDED.title, body = EXCLUDED.body, footer_url = EXCLUDED.footer_url, updated_at = now()`
    : 'DO NOTHING';
  for (const t of DEFAULT_TEMPLATES) {
    await tx.query(
      `INSERT INTO templates (kind, template_id, lang, title, body, footer_url) VALUES ($1, 0, $2, $3, $4, $5)
       ON CONFLICT (kind, template_id, lang) ${onConflict}`,
      [t.kind, t.lang, t.title, t.body, t.footerUrl],
    );
  }
}
