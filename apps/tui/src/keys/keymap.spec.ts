import {
  KEY_ACTIONS,
  KeyBinding,
  KEYMAP,
  KeymapError,
  keyName,
  resolveKey,
  SCOPE_STACKS,
  validateKeymap,
} from './keymap';
import { footerHints, helpRows, helpSections } from './help';

describe('keymap', () => {
  describe('validateKeymap', () => {
    it('should accept the shipped keymap', () => {
      expect(() => validateKeymap()).not.toThrow();
    });

    it('should fail on a key bound twice in one scope', () => {
      const broken: KeyBinding[] = [...KEYMAP, { action: 'refresh', keys: ['j'], help: 'dup', scope: 'list' }];
      expect(() => validateKeymap(broken)).toThrow(KeymapError);
      expect(() => validateKeymap(broken)).toThrow(/key "j" is bound to cursor_down \(list\) and refresh \(list\)/);
    });

    it('should fail on a key that shadows another in a scope stacked with it', () => {
      const broken: KeyBinding[] = [...KEYMAP, { action: 'refresh', keys: ['c'], help: 'dup', scope: 'global' }];
      expect(() => validateKeymap(broken)).toThrow(/charge_top \(frontier\)/);
    });
  });

  describe('resolveKey', () => {
    it('should resolve by scope, most specific first', () => {
      expect(resolveKey('c', 'frontier')?.action).toBe('charge_top');
      expect(resolveKey('C', 'frontier')?.action).toBe('charge_selected');
      expect(resolveKey('c', 'machines')).toBeNull();
      expect(resolveKey('a', 'machines')?.action).toBe('machine_approve');
      expect(resolveKey('j', 'events')?.action).toBe('cursor_down');
      expect(resolveKey(']', 'events')?.action).toBe('tab_next');
      expect(resolveKey('escape', 'charge')?.action).toBe('dialog_no');
      expect(resolveKey('enter', 'charge')?.action).toBe('dialog_activate');
    });

    it('should let C-c quit from every scope, text inputs included', () => {
      for (const stack of SCOPE_STACKS) expect(resolveKey('C-c', stack[1])?.action).toBe('force_quit');
    });

    it('should leave printable keys to text input in the filter, code and help scopes', () => {
      expect(resolveKey('q', 'filter')).toBeNull();
      expect(resolveKey('j', 'code')).toBeNull();
      expect(resolveKey('q', 'help')).toBeNull();
    });

    it('should bind every action somewhere', () => {
      const bound = new Set(KEYMAP.map((b) => b.action));
      expect(KEY_ACTIONS.filter((a) => !bound.has(a))).toEqual([]);
    });

    it('should mark charge, approve and deny dangerous', () => {
      const dangerous = KEYMAP.filter((b) => b.dangerous).map((b) => b.action);
      expect(dangerous).toEqual(
        expect.arrayContaining(['charge_top', 'charge_selected', 'machine_approve', 'machine_deny']),
      );
    });
  });

  describe('keyName', () => {
    it('should name printable characters as typed and other keys by name', () => {
      expect(keyName('C', { name: 'c', full: 'S-c', shift: true })).toBe('C');
      expect(keyName('?', { name: undefined, full: '?' })).toBe('?');
      expect(keyName(undefined, { name: 'down', full: 'down' })).toBe('down');
      expect(keyName('\x03', { name: 'c', full: 'C-c', ctrl: true })).toBe('C-c');
      expect(keyName('\r', { name: 'enter', full: 'enter' })).toBe('enter');
      expect(keyName('\x1b', { name: 'escape', full: 'escape' })).toBe('escape');
    });

    it("should drop blessed's duplicate 'return' report of the enter key", () => {
      expect(keyName('\r', { name: 'return', full: 'return' })).toBeNull();
    });
  });

  describe('help and hints', () => {
    it('should list the active scope first and filter by substring', () => {
      const rows = helpRows('machines');
      expect(rows[0].scope).toMatch(/always|machines|list|global/);
      const filtered = helpRows('frontier', 'charge');
      expect(filtered.map((r) => [r.help, r.dangerous])).toEqual(
        expect.arrayContaining([
          ['charge the top runnable item', true],
          ['charge the selected item', true],
        ]),
      );
      expect(filtered.every((r) => `${r.keys} ${r.help} ${r.scope}`.toLowerCase().includes('charge'))).toBe(true);
    });

    it('should group the help in sections, the current view first, each binding once and never "asks first" twice', () => {
      const sections = helpSections('machines');
      expect(sections[0].title).toBe('Machines');
      expect(sections.map((s) => s.title)).toEqual(expect.arrayContaining(['Lists', 'Main screen', 'Dialogs']));
      const rows = sections.flatMap((s) => s.rows);
      // every binding shows; the dialogs' shared "move the focus" and "press the focused button" once
      for (const section of sections) {
        expect(new Set(section.rows.map((r) => `${r.keys} ${r.help}`)).size).toBe(section.rows.length);
      }
      for (const b of KEYMAP) expect(rows.some((r) => r.help === b.help)).toBe(true);
      for (const b of KEYMAP) expect(b.help).not.toMatch(/asks? first|\(asks\)/);
      expect(rows.filter((r) => r.dangerous).map((r) => r.help)).toEqual(
        expect.arrayContaining([
          'charge the top runnable item',
          'approve the selected request: type the code the machine shows',
        ]),
      );
      // inside a dialog the dialog is the asking: "yes" is not marked
      expect(rows.find((r) => r.help === 'yes: dispatch')?.dangerous).toBe(false);
    });

    it("should put the open detail pane's hints first and leave out enter", () => {
      const hints = footerHints('frontier', false, KEYMAP, true).map((h) => `${h.key} ${h.label}`);
      expect(hints.slice(0, 3)).toEqual(['esc close', 'p hide', 'J scroll']);
      expect(hints).not.toContain('enter detail');
      expect(footerHints('frontier', false).map((h) => h.label)).not.toContain('scroll');
    });

    it('should generate footer hints from the keymap and drop dangerous ones in read-only mode', () => {
      const labels = footerHints('frontier', false).map((h) => `${h.key} ${h.label}`);
      expect(labels).toEqual(expect.arrayContaining(['c charge top', '/ filter', 'q quit', '? help']));
      const readOnly = footerHints('frontier', true).map((h) => h.label);
      expect(readOnly).not.toContain('charge top');
      expect(footerHints('machines', true).map((h) => h.label)).not.toContain('approve');
    });
  });
});
