// Sentence templates of job descriptions, by section; {slots} are filled from the opening, the company and the vocabulary.

// Slots: company title team focus site city dept industry hq region stake adj adj2 nouns nouns2 mass mass2 verb verb2 adv
// skill skill2 skill3 duty sduty req edu years benefit benefit2 benefit3 year count decades country; "a:" adds the article,
// a capitalised slot name capitalises the first letter.

const lines = (text: string) => text.trim().split('\n').map((line) => line.trim());

/** First sentence: always names the title and the team, so even a cut-short copy tells openings apart. */
export const INTRO = lines(`
  {company} is hiring {a:title} to join the {team} team in {city}.
  Join the {team} team at {company} as {a:title} based in {city}.
  We are looking for {a:title} for our {team} team in {city}.
  {company} is seeking {a:adj} {title} to support the {team} team at our {city} location.
  As {a:title} on the {team} team, you will work out of our {city} {site}.
  The {team} team at {company} in {city} is adding {a:title}.
`);

export const TEAM = lines(`
  The {team} team {focus}.
  Our {team} team {focus}, and this role is central to that work.
  The {team} group {focus} and works closely with {stake} every day.
  Within {dept}, the {team} team {focus}.
  The {team} team {focus}; you will report to its manager.
  Reporting to the {team} manager, you will join a team that {focus}.
`);

export const SITE = lines(`
  This position is based at our {site} ({unit}).
  You will report to the {team} lead at our {site} ({unit}).
  The role sits in {unit} of our {site}.
`);

export const SUMMARY = lines(`
  In this role you will {verb} {adj} {nouns} and help {stake} get the most out of {mass}.
  You will {verb} {nouns} {adv} and bring {adj} ideas to the team.
  This is {a:adj} role for someone who enjoys {mass} and {mass2}.
  You will be part of {a:adj}, {adj2} team that values {mass} and {mass2}.
  Day to day, you will {verb} {nouns}, {verb2} {nouns2} and keep {stake} informed.
  We need someone who can {verb} {adj} {nouns} while keeping a close eye on {mass}.
  You will work closely with your manager to {verb} {nouns} and grow your skills in {mass}.
`);

export const ABOUT = lines(`
  {company} is {a:adj} {industry} company headquartered in {hq}.
  Founded in {year}, {company} serves {stake} across {region}.
  Our {count} employees {verb} {adj} {nouns} for {stake} every day.
  We believe in {mass}, {mass2} and doing right by our {stake}.
  For more than {decades} years, we have helped {stake} {verb} their {nouns}.
  {company} has been recognized as {a:adj} place to work.
  We are {a:adj}, {adj2} team that cares about {mass} and {mass2}.
  Today {company} operates across {region} and keeps growing.
`);

export const RESPONSIBILITIES = lines(`
  {Duty}.
  {Duty}.
  {Sduty}.
  {Verb} {adj} {nouns} with the {dept} team.
  {Verb} and {verb2} {nouns} for {stake}.
  Use {skill} to {verb} {nouns} {adv}.
  Partner with {stake} to {verb} {mass} and {mass2}.
  Track {mass} metrics and share {adj} {nouns} with leadership.
  Keep {nouns} accurate, organized and up to date.
  {Verb} {mass} across {adj} {nouns}.
  Identify opportunities to {verb} {mass} and reduce {adj} {nouns}.
  Help {verb} {adj} {nouns} for the {dept} organization.
  Support {adj} {nouns} during busy periods.
  {Verb} {nouns} {adv} and escalate {adj} {nouns2} when needed.
  Keep your manager and the {dept} team informed about {nouns} and {mass}.
`);

export const REQUIREMENTS = lines(`
  {Years} of experience as {a:base} or in a similar role.
  {Req}.
  Experience with {skill} and {skill2}.
  Working knowledge of {skill}, {skill2} or {skill3}.
  {Edu}.
  {A:adj} approach to {mass} and {mass2}.
  Ability to {verb} {nouns} {adv} in {a:adj} environment.
  Familiarity with {skill} is a plus.
  {Adj} communication and {mass} skills.
  Comfort working with {stake} and {stake2}.
`);

export const SKILLS = lines(`
  Tools you will use include {skill}, {skill2} and {skill3}.
  You should be comfortable with {skill} and {skill2}.
  Bonus points for experience with {skill} or {skill2}.
  Our {dept} team works with {skill}, {skill2} and {skill3} every day.
`);

export const BENEFIT_LINES = lines(`
  We offer {benefit}, {benefit2} and {benefit3}.
  Benefits include {benefit} and {benefit2}.
  Full-time team members enjoy {benefit}, {benefit2} and {benefit3}.
  You will also receive {benefit} and {benefit2}.
`);

export const CLOSING = lines(`
  Apply today to join {company}.
  If this sounds like you, we would love to hear from you.
  Ready to grow your career? Submit your résumé today.
  Interviews are held on a rolling basis, so apply soon.
  We review every application and will follow up within two weeks.
  Candidates must be authorized to work in {country}.
`);

/** Equal opportunity statements by country; the first group applies to every country not listed. */
export const EEO: Readonly<Record<string, readonly string[]>> = {
  US: lines(`
    {company} is an equal opportunity employer. All qualified applicants will receive consideration for employment without regard to race, color, religion, sex, sexual orientation, gender identity, national origin, disability or protected veteran status.
    We are proud to be an equal opportunity workplace and an affirmative action employer committed to a diverse and inclusive team.
    {company} provides reasonable accommodations to qualified individuals with disabilities. Contact our recruiting team to request an accommodation.
    We celebrate diversity and are committed to creating an inclusive environment for all employees. E-Verify participant.
  `),
  GB: lines(`
    We are committed to equality, diversity and inclusion, and welcome applications from all sections of the community.
    {company} is a Disability Confident employer and will offer an interview to disabled candidates who meet the essential criteria.
  `),
  DE: lines(`
    We value diversity and welcome all applications regardless of gender, nationality, ethnic and social origin, religion, disability, age or sexual identity.
    Severely disabled applicants with equal qualifications will be given preference.
  `),
  CA: lines(`
    {company} is committed to employment equity and welcomes applications from women, Indigenous peoples, persons with disabilities and members of visible minorities.
    Accommodations are available on request for candidates taking part in all aspects of the selection process.
  `),
  other: lines(`
    {company} is an equal opportunity employer and values diversity at every level.
    We welcome applicants of every background and are committed to a fair and inclusive hiring process.
  `),
};

export const HEADINGS = {
  role: ['About the role', 'The role', 'Position overview', 'Job summary', 'Overview'],
  about: ['About us', 'About {company}', 'Who we are', 'Company overview'],
  responsibilities: ["What you'll do", 'Responsibilities', 'Key responsibilities', 'Duties', 'Your day to day'],
  requirements: ["What you'll bring", 'Qualifications', 'Requirements', 'What we are looking for', 'Minimum qualifications'],
  skills: ['Skills and tools', 'Nice to have', 'Preferred skills'],
  pay: ['Compensation', 'Pay', 'Pay range', 'Salary'],
  benefits: ['Benefits', 'What we offer', 'Perks and benefits', 'Why you will love working here'],
} as const;

export const REGIONS = lines(`
  the United States
  North America
  the Midwest
  the Southeast
  the Pacific Northwest
  New England
  the Mountain West
  the Gulf Coast
  the Mid-Atlantic
  Texas and the Southwest
  more than 40 countries
  Europe and North America
  the greater metro area
  three states
  communities large and small
`);
