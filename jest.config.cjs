/** Jest: TypeScript through SWC, tests beside the code (*.test.ts). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/services', '<rootDir>/deploy'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': [
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
