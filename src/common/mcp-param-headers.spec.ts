import { headerParameters, parameterHeaders } from './mcp-param-headers';

const schema = (properties: Record<string, unknown>) => ({ type: 'object', properties });

describe('x-mcp-header parameters', () => {
  it('mirrors annotated parameters present in the arguments, nested ones by their properties path', () => {
    const tool = schema({
      region: { type: 'string', 'x-mcp-header': 'Region' },
      retries: { type: 'integer', 'x-mcp-header': 'Retries' },
      dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
      target: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
      absent: { type: 'string', 'x-mcp-header': 'Absent' },
      nulled: { type: 'string', 'x-mcp-header': 'Nulled' },
      // A property that happens to be named like the keyword is a property, not an annotation.
      'x-mcp-header': { type: 'string' },
    });
    expect(
      parameterHeaders(tool, { region: 'us-west1', retries: -7, dry: false, target: { zone: ' a ' }, nulled: null }),
    ).toEqual({
      'Mcp-Param-Region': 'us-west1',
      'Mcp-Param-Retries': '-7',
      'Mcp-Param-Dry-Run': 'false',
      'Mcp-Param-Zone': `=?base64?${Buffer.from(' a ').toString('base64')}?=`,
    });
  });

  it.each([
    ['a number parameter', schema({ n: { type: 'number', 'x-mcp-header': 'N' } }), /not a string, integer or boolean/],
    ['an empty name', schema({ a: { type: 'string', 'x-mcp-header': '' } }), /not an HTTP header name token/],
    ['a name with a newline', schema({ a: { type: 'string', 'x-mcp-header': 'A\nB' } }), /token/],
    [
      'a name used twice',
      schema({ a: { type: 'string', 'x-mcp-header': 'Same' }, b: { type: 'string', 'x-mcp-header': 'same' } }),
      /used twice/,
    ],
    [
      'an annotation under items',
      schema({ list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } }),
      /not a property/,
    ],
    [
      'an annotation under anyOf',
      { anyOf: [schema({ a: { type: 'string', 'x-mcp-header': 'A' } })] },
      /not a property/,
    ],
    ['an annotation on the root', { type: 'object', 'x-mcp-header': 'Root' }, /not a property/],
  ])('makes the tool invalid with %s', (_case, tool, problem) => {
    const found = headerParameters(tool);
    expect('problem' in found && found.problem).toMatch(problem);
  });
});
