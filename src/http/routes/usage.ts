/** GET /usage: the caller's counts against its limits (SPEC.md's usage object). */
import { Router } from 'express';

import type { AppContext } from '../app.js';
import { apiKeyOf, guardStore } from '../auth.js';

export function usageRoutes(ctx: AppContext): Router {
  const router = Router();
  router.get('/usage', async (_req, res) => {
    const key = apiKeyOf(res);
    const usage = await guardStore(() => ctx.store.usage(key.id, ctx.now()));
    res.json({
      api_key_name: key.name,
      requests_this_minute: usage.requestsThisMinute,
      rate_limit: key.rateLimit,
      analyses_this_month: usage.analysesThisMonth,
      monthly_limit: key.monthlyLimit,
    });
  });
  return router;
}
