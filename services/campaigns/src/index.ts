export { createCampaignsService, type CampaignsServiceDeps } from './service.ts';
export { type CampaignThrottle, DEFAULT_THROTTLE } from './campaigns/dispatch.ts';
export { campaignThrottleEnv, throttleOf } from './config.ts';
