import { describeConstraint } from '../../common/errors/database-errors';

describeConstraint('users_email_unique', 409, 'Email already registered');
describeConstraint('users_idp_id_unique', 409, 'This identity-provider account is already linked');
describeConstraint('users_phone_check', 400, 'Phone must be +91 followed by 10 digits');
describeConstraint('users_role_check', 400, 'Role must be student, manager, treasurer or admin');
