import { describe, expect, it } from 'vitest';
import { errorText } from './error-text.js';

describe('errorText', () => {
  it('gives an Error its message, without the name', () => {
    expect(errorText(new TypeError('bad input'))).toBe('bad input');
  });

  it('gives anything else its String form', () => {
    expect(errorText('plain')).toBe('plain');
    expect(errorText(42)).toBe('42');
    expect(errorText(undefined)).toBe('undefined');
  });
});
