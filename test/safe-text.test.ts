// The shared sanitiser for a remote's or a forge's words: what a terminal would act on is gone,
// and no form of a secret is left. Expected strings are written out by hand.
import { describe, expect, it } from 'vitest';
import { redactSecrets, remoteText, withoutControls } from '../src/model/safe-text.ts';

describe('withoutControls', () => {
  it('removes OSC, CSI, two-character escapes, C0 and C1 controls; keeps tab and line feed', () => {
    const hostile =
      'remote: error: \x1b]0;pwned title\x07denied\x1b[31m red\x1b[0m\x1bc\x00\x08\x7f\x85\x9b2Jend\tok\nnext';
    expect(withoutControls(hostile)).toBe('remote: error: denied redend\tok\nnext');
  });

  it('removes an OSC ended by ST, a DCS string and an unterminated OSC to the end', () => {
    expect(withoutControls('a\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\b')).toBe('alinkb');
    expect(withoutControls('x\x1bPq#0;2;0;0;0\x1b\\y')).toBe('xy');
    expect(withoutControls('x\x1b]0;never ends')).toBe('x');
  });

  it('turns carriage returns into line feeds so no line overwrites another', () => {
    expect(withoutControls('Counting: 1%\rCounting: 100%\r\ndone')).toBe(
      'Counting: 1%\nCounting: 100%\ndone',
    );
  });
});

describe('redactSecrets', () => {
  const token = 'canary-Tk9!zz';
  it('removes the raw value, its percent-encoding and base64 forms', () => {
    const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
    const bare = Buffer.from(token).toString('base64');
    const text = `access denied for token ${token}; url ?t=canary-Tk9!zz%20 ?t=${encodeURIComponent(token)} Basic ${basic} b=${bare}`;
    const out = redactSecrets(text, [token]);
    expect(out).toBe('access denied for token ***; url ?t=***%20 ?t=*** Basic *** b=***');
  });

  it('finds a secret split by an escape sequence once the sequence is gone', () => {
    expect(remoteText('token canary-\x1b[0mTk9!zz here', [token])).toBe('token *** here');
  });
});
