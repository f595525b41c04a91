import { Body, Controller, Get, HttpCode, Param, ParseIntPipe, Patch, Post, Put, Query } from '@nestjs/common';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import {
  AddNoteDto,
  AddTaskFileDto,
  CreateEpicTaskDto,
  NotesQueryDto,
  UpdateEpicTaskDto,
  UpsertChainDto,
} from './dto/epics.dto';
import { EpicsService } from './epics.service';
import { Writes } from '../rulebook/writes.decorator';

@Controller('v1/epics/:ref')
export class EpicsController {
  constructor(private readonly service: EpicsService) {}

  @Get()
  overview(@CurrentActor() actor: AuthenticatedActor, @Param('ref') ref: string) {
    return this.service.overview(actor, ref);
  }

  @Get('tasks')
  tasks(@CurrentActor() actor: AuthenticatedActor, @Param('ref') ref: string) {
    return this.service.tasks(actor, ref);
  }

  @Writes('scope')
  @Post('tasks')
  createTask(@CurrentActor() actor: AuthenticatedActor, @Param('ref') ref: string, @Body() dto: CreateEpicTaskDto) {
    return this.service.createTask(actor, ref, dto);
  }

  @Get('tasks/:num')
  task(@CurrentActor() actor: AuthenticatedActor, @Param('ref') ref: string, @Param('num', ParseIntPipe) num: number) {
    return this.service.task(actor, ref, num);
  }

  @Writes('scope')
  @Patch('tasks/:num')
  updateTask(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('ref') ref: string,
    @Param('num', ParseIntPipe) num: number,
    @Body() dto: UpdateEpicTaskDto,
  ) {
    return this.service.updateTask(actor, ref, num, dto);
  }

  @Writes('scope')
  @Post('tasks/:num/dispatch')
  @HttpCode(200)
  dispatch(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('ref') ref: string,
    @Param('num', ParseIntPipe) num: number,
  ) {
    return this.service.dispatch(actor, ref, num);
  }

  @Get('files')
  files(@CurrentActor() actor: AuthenticatedActor, @Param('ref') ref: string) {
    return this.service.files(actor, ref);
  }

  @Writes('scope')
  @Post('tasks/:num/files')
  addFile(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('ref') ref: string,
    @Param('num', ParseIntPipe) num: number,
    @Body() dto: AddTaskFileDto,
  ) {
    return this.service.addFile(actor, ref, num, dto);
  }

  @Get('chains')
  chains(@CurrentActor() actor: AuthenticatedActor, @Param('ref') ref: string) {
    return this.service.chains(actor, ref);
  }

  @Writes('scope')
  @Put('chains/:worktree')
  upsertChain(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('ref') ref: string,
    @Param('worktree') worktree: string,
    @Body() dto: UpsertChainDto,
  ) {
    return this.service.upsertChain(actor, ref, worktree, dto);
  }

  @Get('notes')
  notes(@CurrentActor() actor: AuthenticatedActor, @Param('ref') ref: string, @Query() query: NotesQueryDto) {
    return this.service.notes(actor, ref, query.task);
  }

  @Writes('scope')
  @Post('tasks/:num/notes')
  addNote(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('ref') ref: string,
    @Param('num', ParseIntPipe) num: number,
    @Body() dto: AddNoteDto,
  ) {
    return this.service.addNote(actor, ref, num, dto);
  }
}
