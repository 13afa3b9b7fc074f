import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Test fixtures made at run time (ai-feasibility.md §2, §5): licence-clean images from Debian
 * python3-skimage, a second person cropped from @vladmandic/human's own screenshot (MIT package, used from
 * node_modules, never copied into git), ImageMagick composites and ID cards, and an ffmpeg + espeak-ng WebM.
 */
export const SKIMAGE = '/usr/lib/python3/dist-packages/skimage/data';
const HUMAN_ASSETS = path.resolve('node_modules/@vladmandic/human/assets');

const TOOLS: Record<string, string> = {
  convert: 'imagemagick',
  ffmpeg: 'ffmpeg',
  'espeak-ng': 'espeak-ng',
  sox: 'sox',
};

function has(cmd: string): boolean {
  // ImageMagick itself, not any `convert` on PATH: some machines carry a PNG-only stand-in in /usr/local/bin
  // that hands calls on to /usr/bin/convert only once ImageMagick is installed.
  if (cmd === 'convert') return existsSync('/usr/bin/convert');
  return spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
}

/** Why the AI fixtures cannot be made here (a missing tool or image), or null when they can. */
export function missingFixtureTools(): string | null {
  const missing = Object.keys(TOOLS).filter((c) => !has(c));
  if (missing.length) {
    return `missing ${missing.join(', ')}: apt-get install ${missing.map((c) => TOOLS[c]).join(' ')}`;
  }
  if (!existsSync(path.join(SKIMAGE, 'astronaut.png')))
    return 'missing skimage images: apt-get install python3-skimage';
  if (!spawnSync('fc-list', [':lang=ja']).stdout?.toString().trim()) {
    return 'missing a Japanese font: apt-get install fonts-noto-cjk';
  }
  return null;
}

function run(cmd: string, args: string[]): void {
  execFileSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

export function jpFont(): string {
  const out = spawnSync('fc-list', [':lang=ja', 'file']).stdout.toString().split('\n');
  const pick = out.find((l) => /NotoSansCJK-Regular|NotoSansCJK.*Regular|ipag/i.test(l)) ?? out[0]!;
  return pick.replace(/:\s*$/, '').trim();
}

/** The fixture files. */
export interface AiFixtures {
  dir: string;
  astronaut: string;
  profile: string;
  noFace: string;
  twoFaces: string;
  blurred: string;
  otherMan: string;
  cardLatin: string;
  cardJapanese: string;
  cardOther: string;
  cleanup(): void;
}

export function card(
  dir: string,
  name: string,
  face: string,
  text: string,
  font: string,
  header: string,
): string {
  const out = path.join(dir, name);
  run('convert', [
    '-size',
    '856x540',
    'xc:#e8f0f8',
    '-fill',
    '#1d4e89',
    '-draw',
    'rectangle 0,0 856,80',
    '-font',
    font,
    '-fill',
    'white',
    '-pointsize',
    '36',
    '-annotate',
    '+30+55',
    header,
    '(',
    face,
    '-resize',
    '200x243^',
    '-gravity',
    'center',
    '-extent',
    '200x243',
    ')',
    '-gravity',
    'northwest',
    '-geometry',
    '+620+150',
    '-composite',
    '-font',
    font,
    '-fill',
    'black',
    '-pointsize',
    '48',
    '-annotate',
    '+40+200',
    text,
    '-pointsize',
    '28',
    '-annotate',
    '+40+280',
    'X1234-5678-90',
    out,
  ]);
  return out;
}

/** Makes every still image into a fresh temp folder (about a second). */
export function makeImageFixtures(): AiFixtures {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ai-fixtures-'));
  const f = (n: string) => path.join(dir, n);
  const astronaut = path.join(SKIMAGE, 'astronaut.png');
  // The astronaut's head and shoulders, as a card photo would show them.
  run('convert', [astronaut, '-crop', '260x300+120+10', '+repage', f('astro-head.png')]);
  run('convert', [astronaut, '(', astronaut, '-flop', '-modulate', '100,60', ')', '+append', f('two.png')]);
  run('convert', [astronaut, '-blur', '0x6', f('blur.png')]);
  run('convert', [
    path.join(HUMAN_ASSETS, 'screenshot-faceid.jpg'),
    '-crop',
    '139x139+14+142',
    '+repage',
    '-resize',
    '400x400',
    '-background',
    'black',
    '-gravity',
    'center',
    '-extent',
    '512x512',
    f('man.png'),
  ]);
  const latinFont = 'DejaVu-Sans';
  const ja = jpFont();
  return {
    dir,
    astronaut,
    profile: path.join(SKIMAGE, 'camera.png'),
    noFace: path.join(SKIMAGE, 'coffee.png'),
    twoFaces: f('two.png'),
    blurred: f('blur.png'),
    otherMan: f('man.png'),
    cardLatin: card(dir, 'card-en.png', f('astro-head.png'), 'EILEEN COLLINS', latinFont, "DRIVER'S LICENSE"),
    cardJapanese: card(dir, 'card-ja.png', f('astro-head.png'), '山田 花子', ja, '運転免許証'),
    cardOther: card(dir, 'card-other.png', f('man.png'), 'EILEEN COLLINS', latinFont, "DRIVER'S LICENSE"),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The known windows of {@link makeClip}, in milliseconds (a 60 s clip, a second person from 25 to 40 s). */
export const CLIP = {
  durationMs: 60000,
  /** The examinee and a second person. */
  secondPerson: [25000, 40000],
  /** Nobody in front of the camera. */
  noFace: [44000, 50000],
  /** espeak-ng speech starts (each phrase about 3.5 s). */
  speech: [
    [5000, 8500],
    [30000, 33500],
    [52000, 55500],
  ],
  /** A 440 Hz tone: loud, but not speech. */
  tone: [14000, 17000],
} as const;

/**
 * A 60 s VP8/Opus WebM: 0–25 s the examinee (astronaut) alone, 25–40 s the examinee with a second person,
 * 40–44 s the examinee, 44–50 s nobody (coffee cup), 50–60 s the examinee; speech at 5 s, 30 s and 52 s, a
 * tone at 14–17 s, quiet noise throughout. Built with the concat filter (the concat demuxer's timestamps were
 * wrong, §5).
 */
export function makeClip(fx: AiFixtures): string {
  const f = (n: string) => path.join(fx.dir, n);
  const frame = (src: string, out: string) =>
    run('convert', [
      src,
      '-resize',
      '640x480',
      '-background',
      'black',
      '-gravity',
      'center',
      '-extent',
      '640x480',
      f(out),
    ]);
  frame(fx.astronaut, 'v-me.png');
  run('convert', [fx.astronaut, fx.otherMan, '+append', f('pair.png')]);
  frame(f('pair.png'), 'v-pair.png');
  frame(fx.noFace, 'v-empty.png');
  const say = (text: string, out: string) => run('espeak-ng', ['-s', '150', '-w', f(out), text]);
  say('Please read the next question carefully and write it down.', 's1.wav');
  say('Can you tell me what the answer to number four is?', 's2.wav');
  say('I think the answer is number three, let me check again.', 's3.wav');
  const pad = (src: string, out: string, at: number) =>
    run('sox', [f(src), '-r', '16000', '-c', '1', f(out), 'pad', String(at / 1000), '0']);
  pad('s1.wav', 's1p.wav', CLIP.speech[0][0]);
  pad('s2.wav', 's2p.wav', CLIP.speech[1][0]);
  pad('s3.wav', 's3p.wav', CLIP.speech[2][0]);
  const seconds = String(CLIP.durationMs / 1000);
  run('sox', ['-n', '-r', '16000', '-c', '1', f('noise.wav'), 'synth', seconds, 'whitenoise', 'vol', '0.01']);
  run('sox', [
    '-n',
    '-r',
    '16000',
    '-c',
    '1',
    f('tone.wav'),
    'synth',
    '3',
    'sine',
    '440',
    'vol',
    '0.3',
    'pad',
    '14',
    '0',
  ]);
  run('sox', [
    '-m',
    f('noise.wav'),
    f('s1p.wav'),
    f('s2p.wav'),
    f('s3p.wav'),
    f('tone.wav'),
    f('mix.wav'),
    'trim',
    '0',
    seconds,
  ]);
  const out = f('clip.webm');
  const segs: [string, number][] = [
    ['v-me.png', 25],
    ['v-pair.png', 15],
    ['v-me.png', 4],
    ['v-empty.png', 6],
    ['v-me.png', 10],
  ];
  const inputs = segs.flatMap(([img, t]) => ['-loop', '1', '-t', String(t), '-framerate', '5', '-i', f(img)]);
  run('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    ...inputs,
    '-i',
    f('mix.wav'),
    '-filter_complex',
    `${segs.map((_, i) => `[${i}:v]`).join('')}concat=n=${segs.length}:v=1:a=0,format=yuv420p[v]`,
    '-map',
    '[v]',
    '-map',
    `${segs.length}:a`,
    '-c:v',
    'libvpx',
    '-deadline',
    'realtime',
    '-cpu-used',
    '8',
    '-b:v',
    '400k',
    '-c:a',
    'libopus',
    '-b:a',
    '48k',
    '-shortest',
    out,
  ]);
  return out;
}
