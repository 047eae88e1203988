/**
 * Messages name types and models with their article: "an integer field", "a User", "an Update"
 * (a probe's message read "is a integer field … validates a integer").
 */
import { describe, expect, it } from 'vitest';
import { withArticle } from '../../src/util/article.js';

describe('withArticle', () => {
  it('says "an" before a vowel sound and "a" before a consonant sound', () => {
    expect(['integer', 'Item', 'Order', 'Update', 'Event'].map(withArticle)).toEqual([
      'an integer',
      'an Item',
      'an Order',
      'an Update',
      'an Event',
    ]);
    expect(['string', 'User', 'Unicorn', 'float', 'datetime'].map(withArticle)).toEqual([
      'a string',
      'a User',
      'a Unicorn',
      'a float',
      'a datetime',
    ]);
  });
});
