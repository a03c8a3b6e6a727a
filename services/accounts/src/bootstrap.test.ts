import { randomBytes } from 'node:crypto';

import { createLogger, openEmbeddedPlatform, Secrets } from '@stamp/platform';
import { temporaryDirectory } from '@stamp/testkit/temporary.ts';

import { createAccountsService } from './index.ts';

describe('bootstrap across processes sharing a data folder', () => {
  it('creates one default project when two start at the same moment', async () => {
    const dataDir = temporaryDirectory('stamp-bootstrap-');
    const logger = createLogger({ level: 'silent' });
    const platforms = [0, 1].map(() => openEmbeddedPlatform({ dataDir, logger }));
    const services = platforms.map((platform) =>
      createAccountsService({
        store: platform.store,
        secrets: new Secrets(randomBytes(32)),
        publicUrl: 'http://localhost',
        signupOpen: false,
        bus: platform.bus,
        views: platform.views,
        logger,
        awaitViews: async () => undefined,
      }),
    );
    try {
      const results = await Promise.all(services.map((service) => service.api.bootstrap()));
      expect(results[0]!.projectId).toBe(results[1]!.projectId);
      expect(results.filter((result) => result.created)).toHaveLength(1);
      const projects = await platforms[0]!.store.readAll({ after: 0, categories: ['project'] });
      expect(projects.filter((event) => event.type === 'ProjectCreated')).toHaveLength(1);
    } finally {
      for (const platform of platforms) await platform.close();
    }
  });
});
