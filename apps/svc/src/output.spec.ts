import { createColors } from 'picocolors';

import { SvcHttpError } from '@app/client';

import { cell, cellLine, reportError } from './output';

describe('terminal-safe text output', () => {
  describe(cell.name, () => {
    it('should show control characters, newline and tab of a cell as escapes', () => {
      expect(cell('a\u001b]0;pwned\u0007\nb\tc')).toBe('a\\x1b]0;pwned\\x07\\nb\\tc');
      expect(cell({ k: 'v\u009b' })).toBe('k=v\\x9b');
      expect(cell(['x\u202e'])).toBe('x\\u202e');
    });
  });

  describe(cellLine.name, () => {
    it('should keep the colours the command line painted and escape everything else', () => {
      const green = createColors(true).green('ready');
      expect(cellLine(`${green} \u001b[2J`)).toBe(`${green} \\x1b[2J`);
    });
  });

  describe(reportError.name, () => {
    it("should escape a daemon refusal's message, which may echo stored text", () => {
      const written: string[] = [];
      const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
        written.push(String(chunk));
        return true;
      });
      try {
        reportError(
          new SvcHttpError(409, { code: 'conflict', message: 'title "x\u001b]52;c;Zm9v\u0007" taken' }),
          false,
        );
      } finally {
        spy.mockRestore();
      }
      expect(written.join('')).toContain('conflict: title "x\\x1b]52;c;Zm9v\\x07" taken');
      // eslint-disable-next-line no-control-regex
      expect(written.join('')).not.toMatch(/\u0007|\u001b\]/);
    });
  });
});
