import {
  parseTemplate,
  renderTemplate,
  rewriteFallbacks,
  templateScope,
  TemplateSyntaxError,
} from './render.ts';

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

  it('caches parsed templates by content', () => {
    expect(parseTemplate('{{ a }}', 'html')).toBe(parseTemplate('{{ a }}', 'html'));
    expect(parseTemplate('{{ a }}', 'html')).not.toBe(parseTemplate('{{ a }}', 'text'));
  });
});
