// Fixtures of the ID-card step as an examinee takes it at home, made at test time from the still images of
// fixtures.ts with ImageMagick: the card held up beside the live face, cards of each public ID type, and face
// photos that fail one quality gate each (too small, cut by the frame edge, too dark).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { card, jpFont, type AiFixtures } from './fixtures';

export interface CardFixtures {
  /** The astronaut holding her own Latin-name driver's licence beside her face. */
  heldSame: string;
  /** The astronaut holding a card with another man's photo (and her name). */
  heldOther: string;
  /** The astronaut holding her Japanese-name driver's licence. */
  heldJapanese: string;
  /** A passport data page with her photo and Latin name. */
  passport: string;
  /** A My Number card with her photo and Japanese name. */
  myNumber: string;
  /** Her licence held beside her face, rotated 8° and slightly blurred (a hand is not a scanner). */
  heldSkewed: string;
  /** Her licence held beside her face, blurred beyond reading. */
  heldBlurred: string;
  /** Face photos failing one gate each. */
  faceTooSmall: string;
  faceOutOfFrame: string;
  faceTooDark: string;
}

const convert = (args: string[]) =>
  execFileSync('/usr/bin/convert', args, { stdio: ['ignore', 'ignore', 'pipe'] });

/** Makes the card and face-quality fixtures into `fx.dir` (about a second). */
export function makeCardFixtures(fx: AiFixtures): CardFixtures {
  const f = (n: string) => path.join(fx.dir, n);
  const head = f('astro-head.png'); // made by makeImageFixtures
  const latin = 'DejaVu-Sans';
  const ja = jpFont();
  const passport = card(fx.dir, 'passport.png', head, 'COLLINS EILEEN', latin, 'PASSPORT  JAPAN');
  const myNumber = card(fx.dir, 'my-number.png', head, '山田 花子', ja, '個人番号カード');
  // The live face on the left of a 912×512 frame, the card (380 px wide, as at arm's length) on the right.
  const held = (cardFile: string, out: string, extra: string[] = []) => {
    convert([
      '-size',
      '912x512',
      'xc:#6f7479',
      fx.astronaut,
      '-geometry',
      '+0+0',
      '-composite',
      '(',
      cardFile,
      '-resize',
      '380x',
      ...extra,
      ')',
      '-geometry',
      '+522+150',
      '-composite',
      f(out),
    ]);
    return f(out);
  };
  const heldSame = held(fx.cardLatin, 'held-same.png');
  const heldOther = held(fx.cardOther, 'held-other.png');
  const heldJapanese = held(fx.cardJapanese, 'held-ja.png');
  const heldSkewed = held(fx.cardLatin, 'held-skewed.png', ['-background', '#6f7479', '-rotate', '8']);
  const heldBlurred = held(fx.cardLatin, 'held-blurred.png', ['-blur', '0x5']);
  // The same face: shrunk to a corner, pushed past the left edge, and in a dark room.
  convert([
    '-size',
    '640x480',
    'xc:#8a8f94',
    '(',
    fx.astronaut,
    '-resize',
    '180x180',
    ')',
    '-geometry',
    '+480+20',
    '-composite',
    f('face-small.png'),
  ]);
  convert([
    '-size',
    '512x512',
    'xc:#8a8f94',
    fx.astronaut,
    '-geometry',
    '-150+0',
    '-composite',
    f('face-edge.png'),
  ]);
  convert([fx.astronaut, '-modulate', '12', f('face-dark.png')]);
  return {
    heldSame,
    heldOther,
    heldJapanese,
    passport,
    myNumber,
    heldSkewed,
    heldBlurred,
    faceTooSmall: f('face-small.png'),
    faceOutOfFrame: f('face-edge.png'),
    faceTooDark: f('face-dark.png'),
  };
}
