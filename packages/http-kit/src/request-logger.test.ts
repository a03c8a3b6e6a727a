import { redactUrl } from './request-logger.ts';

describe('redactUrl', () => {
  it('hides the values of credential query parameters, keeping the rest', () => {
    expect(redactUrl('/auth/oauth/google/callback?state=abc&code=s3cret&iss=x')).toBe(
      '/auth/oauth/google/callback?state=[redacted]&code=[redacted]&iss=x',
    );
    expect(redactUrl('/verify?TOKEN=eyJ.x.y#top')).toBe('/verify?TOKEN=[redacted]#top');
    expect(redactUrl('/contacts?limit=5&search=codes')).toBe('/contacts?limit=5&search=codes');
    expect(redactUrl('/decode=1')).toBe('/decode=1');
  });
});
