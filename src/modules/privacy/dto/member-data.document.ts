import type { ApiResponseOptions } from '@nestjs/swagger';

const list = (description: string) => ({ type: 'array', items: { type: 'object' }, description });

/** The export's document as the OpenAPI describes it: its top-level fields (each record as its own route shows it). */
export const MEMBER_DATA_DOCUMENT: ApiResponseOptions = {
  description: 'The document (no envelope), as an attachment',
  headers: {
    'Content-Disposition': {
      description: 'attachment; filename="mess-data-<id>.json"',
      schema: { type: 'string' },
    },
  },
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['exportedAt', 'user', 'memberships'],
        properties: {
          exportedAt: { type: 'string', format: 'date-time' },
          user: { $ref: '#/components/schemas/UserResponseDto' },
          memberships: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                mess: { $ref: '#/components/schemas/UserMessDto' },
                from: {
                  type: 'string',
                  format: 'date-time',
                  description:
                    'The approval into the first mess (registration if never approved), else the move',
                },
                to: { type: 'string', format: 'date-time', nullable: true },
              },
            },
          },
          attendance: list('As `GET /attendance` shows a mark'),
          feedback: list('As `GET /feedback` shows it'),
          leaves: list('As `GET /leaves` shows one'),
          extras: list('As `GET /extras` shows one'),
          paymentClaims: list('As `GET /accounts/payment-claims` shows one'),
          gatewayOrders: list('`{_id, orderId, amount, status, createdAt}`'),
          notifications: list('As `GET /notifications` lists them, without `title` and `content`'),
          auditEvents: list(
            'As `GET /audit` lists them, with `before`/`after`: about the person or their records',
          ),
          accountEntries: {
            type: 'object',
            additionalProperties: { type: 'array', items: { type: 'object' } },
            description: "Each mess's entries by its slug, as `GET /accounts/{userId}` shows them",
          },
          preferences: { type: 'object', description: 'As `GET /notifications/preferences` answers' },
          choices: list(
            'Their ranked choices in each window of a term (`windowId`, `term`, `preferences` as ' +
              '`GET /mess-windows/{id}/choice` shows them, `[{_id, slug, messName}]`, `updatedAt`), ' +
              'each with their allocation line once drawn (`position`, `hash`, `toMessId`, `rank`, `outcome`) or null',
          ),
        },
      },
    },
  },
};
