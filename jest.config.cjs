/** Jest: TypeScript through SWC, tests beside the code (*.test.ts). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/services', '<rootDir>/deploy'],
  testMatch: ['**/*.test.ts'],
  // @platformatic/kafka and its helpers, jose, openid-client with oauth4webapi, and oidc-provider
  // (the test provider), file-type with its readers, and the OpenAPI validator of @seriousme ship
  // only ES modules: compiled to CommonJS like our code.
  transformIgnorePatterns: [
    '/node_modules/(?!(\\.pnpm/)?(@platformatic|jose|openid-client|oauth4webapi|oidc-provider|file-type|strtok3|token-types|uint8array-extras|@tokenizer|@borewit|@seriousme)[+/@])',
  ],
  transform: {
    '^.+\\.(ts|m?js)$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2024' },
        module: { type: 'commonjs' },
      },
    ],
  },
  // HTTP tests' answers are checked against docs/openapi.json (packages/testkit).
  setupFilesAfterEnv: ['<rootDir>/packages/testkit/src/openapi-setup.ts'],
  testTimeout: 60000,
  maxWorkers: 2,
};
