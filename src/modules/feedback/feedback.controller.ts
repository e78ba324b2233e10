import { Body, Controller, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type CurrentMember, CurrentUser } from '../../common/auth/auth.decorators';
import { ApiAuth } from '../../common/http/api-docs';
import { IdPipe } from '../../common/http/id.pipe';
import { ListFeedbackQuery, SubmitFeedbackDto, UpdateFeedbackDto } from './dto/feedback.requests';
import {
  FeedbackEnvelopeDto,
  FeedbackListDto,
  toFeedbackListItem,
  toFeedbackResponse,
} from './dto/feedback.response';
import { FEEDBACK_GIVEN, FEEDBACK_OTHERS_HIDDEN } from './feedback.errors';
import { FeedbackService } from './feedback.service';

@ApiTags('Feedback')
@Controller('feedback')
export class FeedbackController {
  constructor(private readonly feedback: FeedbackService) {}

  @Get()
  @ApiOperation({
    summary: 'List feedback, newest meal first, with the member nested as `userId: {_id, fullName}`',
    description:
      'Any member reads all feedback. A student sees who gave only their own: on other members’ feedback ' +
      '`userId` is null (anonymous), and the `userId` filter may name only themself (else 403). Managers, ' +
      'treasurers and admins see every member. Filters combine. `mealType` is matched as given (names no ' +
      'longer configured still find their old feedback). Paged: `limit` defaults to 100, at most 500.',
  })
  @ApiOkResponse({ type: FeedbackListDto })
  @ApiAuth(400, [403, FEEDBACK_OTHERS_HIDDEN])
  async listFeedback(
    @CurrentUser() caller: CurrentMember,
    @Query() query: ListFeedbackQuery,
  ): Promise<FeedbackListDto> {
    const { rows, total } = await this.feedback.list(caller, query);
    return {
      success: true,
      feedback: rows.map(toFeedbackListItem),
      pagination: { page: query.page, limit: query.limit, total },
    };
  }

  @Post()
  @ApiOperation({
    summary:
      'Rate a meal: one feedback per member, date and meal type (a second is 409 naming the first as ' +
      '`existingId`; edit it with PUT)',
    description:
      '`rating` is a JSON integer from 1 to 5. `comment` is optional, trimmed, at most 1000 characters. ' +
      '`mealType` must be a configured meal time and `date` today or earlier in the mess time zone.',
  })
  @ApiCreatedResponse({ type: FeedbackEnvelopeDto })
  @ApiAuth(400, [409, { error: FEEDBACK_GIVEN, existingId: '0193a5e4-a1b2-7c3d-8e4f-5a6b7c8d9e0f' }])
  async submitFeedback(
    @CurrentUser() caller: CurrentMember,
    @Body() body: SubmitFeedbackDto,
  ): Promise<FeedbackEnvelopeDto> {
    return { success: true, feedback: toFeedbackResponse(await this.feedback.submit(caller, body)) };
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Change the rating and/or comment of your feedback (admins may change anyone’s)',
    description:
      'Send at least one of `rating`, `comment`. The date and meal type of a feedback cannot change.',
  })
  @ApiOkResponse({ type: FeedbackEnvelopeDto })
  @ApiAuth(400, [403, 'You can only edit your own feedback'], [404, 'Feedback not found'])
  async updateFeedback(
    @CurrentUser() caller: CurrentMember,
    @Param('id', IdPipe) id: string,
    @Body() body: UpdateFeedbackDto,
  ): Promise<FeedbackEnvelopeDto> {
    return { success: true, feedback: toFeedbackResponse(await this.feedback.update(caller, id, body)) };
  }
}
