/** The owner account every real-n8n suite sets up on its fresh instance. */
export const OWNER = {
	email: 'owner@e2e.invalid',
	firstName: 'E2E',
	lastName: 'Owner',
	password: 'E2e-owner-passw0rd',
};
