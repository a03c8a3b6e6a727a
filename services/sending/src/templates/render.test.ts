import {
  describeSyntaxError,
  parseTemplate,
  renderTemplate,
  rewriteFallbacks,
  TemplateSyntaxError,
} from '@stamp/platform';

import { templateScope } from './render.ts';

const scope = templateScope(
  { id: 'c1', email: 'ann@example.org', subscribed: true, data: { name: 'Ann', plan: 'pro' } },
  'https://stamp.test/',
  'token-c1',
);

describe('rewriteFallbacks', () => {
  it('rewrites Plunk ?? fallbacks to the default filter', () => {
    expect(rewriteFallbacks('Hi {{ name ?? there }}!')).toBe('Hi {{ name | default: "there" }}!');
    expect(rewriteFallbacks('{{name??"my friend"}}')).toBe('{{ name | default: "my friend" }}');
    expect(rewriteFallbacks('{{ data.plan ?? free plan }}')).toBe(
      '{{ data.plan | default: "free plan" }}',
    );
  });

  it('keeps line breaks of a rewritten tag so that lines stay where they were', () => {
    const rewritten = rewriteFallbacks('{{ name ??\n there }}\nnext');
    expect(rewritten).toBe('{{ name | default: "there" \n}}\nnext');
    expect(rewritten.split('\n')).toHaveLength(3);
  });

  it('leaves other output alone', () => {
    expect(rewriteFallbacks('{{ name | upcase }}')).toBe('{{ name | upcase }}');
  });
});

describe('renderTemplate', () => {
  it('exposes data keys at top level and under data, and the reserved variables', async () => {
    const html = await renderTemplate(
      '{{ name }} {{ data.plan }} {{ id }} {{ email }} {{ subscribed }} {{ stamp_id }} {{ plunk_email }} {{ unsubscribeUrl }} {{ manageUrl }}',
      'html',
      scope,
    );
    expect(html).toBe(
      'Ann pro c1 ann@example.org true c1 ann@example.org https://stamp.test/unsubscribe/token-c1 https://stamp.test/manage/token-c1',
    );
  });

  it('applies the ?? fallback for missing values', async () => {
    expect(await renderTemplate('Hi {{ nickname ?? there }}', 'text', scope)).toBe('Hi there');
    expect(await renderTemplate('Hi {{ name ?? there }}', 'text', scope)).toBe('Hi Ann');
  });

  it('escapes HTML in bodies but not in subjects', async () => {
    const unsafe = templateScope(
      { id: 'c1', email: 'a@b.c', subscribed: true, data: { name: '<b>&"x"' } },
      'https://stamp.test',
      'token-c1',
    );
    expect(await renderTemplate('<p>{{ name }}</p>', 'html', unsafe)).toBe(
      '<p>&lt;b&gt;&amp;&#34;x&#34;</p>',
    );
    expect(await renderTemplate('{{ name }}', 'text', unsafe)).toBe('<b>&"x"');
  });

  it('refuses include, render and layout', () => {
    for (const source of ["{% include 'x' %}", "{% render 'x' %}", "{% layout 'x' %}"]) {
      expect(() => parseTemplate(source, 'html')).toThrow(TemplateSyntaxError);
    }
  });

  it('refuses syntax errors and unknown filters', () => {
    expect(() => parseTemplate('{% if %}', 'html')).toThrow(TemplateSyntaxError);
    expect(() => parseTemplate('{{ name | nosuchfilter }}', 'html')).toThrow(TemplateSyntaxError);
  });

  it('gives the line and the reason of a syntax error', () => {
    const errorOf = (source: string): TemplateSyntaxError => {
      try {
        parseTemplate(source, 'html');
      } catch (error) {
        if (error instanceof TemplateSyntaxError) return error;
        throw error;
      }
      throw new Error('expected a syntax error');
    };
    const unclosed = errorOf('<p>a</p>\n\n{% if x %}\n');
    expect([unclosed.line, unclosed.reason]).toEqual([3, 'tag {% if x %} not closed']);
    expect(describeSyntaxError(unclosed)).toBe(
      'Liquid syntax error on line 3: tag {% if x %} not closed',
    );
    const filter = errorOf('{% if a %}\n{{ b ?? c }}\n{{ x | nosuch }}{% endif %}');
    expect(describeSyntaxError(filter)).toBe(
      'Liquid syntax error on line 3: undefined filter: nosuch',
    );
    const afterFallback = errorOf('{{ name ??\n there }}\n{% if %}');
    expect(afterFallback.line).toBe(3);
    expect(describeSyntaxError(new TemplateSyntaxError('broken'))).toBe(
      'Liquid syntax error: broken',
    );
  });

  it('caches parsed templates by content', () => {
    expect(parseTemplate('{{ a }}', 'html')).toBe(parseTemplate('{{ a }}', 'html'));
    expect(parseTemplate('{{ a }}', 'html')).not.toBe(parseTemplate('{{ a }}', 'text'));
  });
});
