export { DASHBOARD_DIST, DASHBOARD_ROOT, ensureDashboardBuilt, isBuildCurrent } from './build.ts';
export { DASHBOARD_CSP, dashboardRouter, isDashboardPage } from './serve.ts';
