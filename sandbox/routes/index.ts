import type { Ctx } from '../context';
import type { Router } from '../http';
import { registerCatalog } from './catalog';
import { registerHallPlan } from './hallPlan';
import { registerOrders } from './orders';
import { registerReference } from './reference';
import { registerWidget } from './widget';

export function registerRoutes(router: Router<Ctx>): void {
	registerCatalog(router);
	registerHallPlan(router);
	registerOrders(router);
	registerReference(router);
	registerWidget(router);
}
