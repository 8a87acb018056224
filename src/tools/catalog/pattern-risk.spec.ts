import { nonLinearPatternRisk } from './pattern-risk';

describe('nonLinearPatternRisk', () => {
  it.each([
    ['^(a+)+$', 'nested quantifiers'],
    ['(\\w+\\s?)*$', 'nested quantifiers'],
    ['^(([a-z])+.)+[A-Z]([a-z])+$', 'nested quantifiers'],
    [
      '^([a-zA-Z0-9])(([\\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$',
      'nested quantifiers',
    ],
    ['((a+))+', 'nested quantifiers'],
    ['(?:x*){2,}', 'nested quantifiers'],
    ['(a|a)*', 'a repeated alternation whose branches overlap'],
    ['^(a|ab)+$', 'a repeated alternation whose branches overlap'],
    ['(.|\\s)*', 'a repeated alternation whose branches overlap'],
    ['(a)\\1', 'a backreference'],
    ['(?<q>a)\\k<q>', 'a backreference'],
    ['^(?=.*\\d).{8,}$', 'lookaround'],
    ['(?<!x)y', 'lookaround'],
  ])('flags %s (%s)', (pattern, reason) => {
    expect(nonLinearPatternRisk(pattern)).toBe(reason);
  });

  it.each([
    '^[a-z0-9]+(-[a-z0-9]+)*$',
    '^(\\d+\\.)+\\d+$',
    '^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}$',
    '^(GET|POST|PUT|PATCH)$',
    '^\\d{4}-\\d{2}-\\d{2}$',
    '^(?:[a-z]{2}){1,3}$',
    '[(+*]{3}',
    'a{,3}+',
    '^(?<year>\\d{4})$',
  ])('leaves %s alone', (pattern) => {
    expect(nonLinearPatternRisk(pattern)).toBeUndefined();
  });

  it('reads a long pattern in one pass', () => {
    expect(nonLinearPatternRisk(`${'('.repeat(50_000)}a${')'.repeat(50_000)}`)).toBeUndefined();
    expect(nonLinearPatternRisk(`${'(a+)'.repeat(50_000)}+`)).toBe('nested quantifiers');
  });
});
