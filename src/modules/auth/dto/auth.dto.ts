import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import {
  EmailField,
  IndianPhoneField,
  Optional,
  PasswordField,
  TextField,
} from '../../../common/http/fields';
import { RoomField, UserSummaryDto } from '../../users';

export class RegisterDto {
  @EmailField()
  email: string;

  @PasswordField()
  password: string;

  @TextField(1, 100, { example: 'Asha Verma' })
  fullName: string;

  @TextField(1, 50, { example: 'CS21B042' })
  collegeId: string;

  @RoomField()
  room: string;

  @IndianPhoneField()
  phone: string;

  @ApiPropertyOptional({
    example: 'hostel-7',
    description: 'The mess to join: an _id or a slug (extension 2.2); left out: the first mess',
  })
  @Length(1, 40)
  @IsString()
  @Optional()
  mess?: string;

  @ApiPropertyOptional({
    example: '2026-11',
    description:
      "The privacy notice's version the newcomer accepts (extension 2.3): required, and equal to `GET /privacy`'s " +
      '`notice.version`, while a notice is configured (else 400 naming `acceptNotice`); ignored when none is',
  })
  @Length(1, 40)
  @IsString()
  @Optional()
  acceptNotice?: string;
}

export class LoginDto {
  @EmailField()
  email: string;

  @ApiProperty({ format: 'password', example: 'correct-horse-battery' })
  @IsString()
  @Length(1, 200)
  password: string;
}

export class IdpLoginDto {
  @ApiProperty({
    description: 'ID token from the identity provider (a signed JWT), 20 to 8,192 characters',
    minLength: 20,
    maxLength: 8192,
  })
  @IsString()
  @Length(20, 8192)
  token: string;
}

export class ChangePasswordDto {
  @ApiProperty({ format: 'password' })
  @IsString()
  @Length(1, 200)
  currentPassword: string;

  @PasswordField()
  newPassword: string;
}

export class ForgotPasswordDto {
  @EmailField()
  email: string;
}

export class ResetPasswordDto {
  @ApiProperty({
    description: 'The token from the mailed link (`…/reset-password?token=…`)',
    example: 'q3V…',
  })
  @IsString()
  @Length(1, 200)
  token: string;

  @PasswordField()
  newPassword: string;
}

export class RegisterResponseDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({
    example: 'Registration received. An admin must approve your account before you can log in.',
  })
  message: string;
  @ApiProperty({ example: '0193a5e4-7c1a-7c9e-9d3b-4a1f2e3d4c5b' }) userId: string;
}

export class LoginResponseDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ description: 'HS256 JWT, valid for 7 days; send as `Authorization: Bearer <token>`' })
  token: string;
  @ApiProperty({ type: UserSummaryDto }) user: UserSummaryDto;
}

export class VerifyResponseDto {
  @ApiProperty({ example: true }) valid: boolean;
  @ApiProperty({ type: UserSummaryDto }) user: UserSummaryDto;
}

export class PasswordChangedDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ example: 'Password changed. Every earlier token is now invalid.' }) message: string;
  @ApiProperty({ description: 'A new token, so this client stays signed in' }) token: string;
}
