/** Jest: TypeScript through SWC, tests beside the code (*.test.ts). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/services', '<rootDir>/deploy'],
  testMatch: ['**/*.test.ts'],
  // @platformatic/kafka and its helpers, and jose, ship only ES modules: compiled to CommonJS like
  // our code.
  transformIgnorePatterns: ['/node_modules/(?!(\\.pnpm/)?(@platformatic|jose)[+/@])'],
  transform: {
    '^.+\\.(ts|m?js)$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2024' },
        module: { type: 'commonjs' },
      },
    ],
  },
  testTimeout: 60000,
  maxWorkers: 2,
};
