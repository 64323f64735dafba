//! Word lists for people, institutions, publishers and places.

pub static GIVEN_NAMES: &[&str] = &[
    "Alice", "Bruno", "Chiara", "Daniel", "Elena", "Farid", "Grace", "Hugo", "Ingrid", "Jonas",
    "Kavya", "Lucas", "Maria", "Nikolai", "Olivia", "Pedro", "Quentin", "Rosa", "Samuel", "Tamara",
    "Umar", "Valeria", "William", "Ximena", "Yusuf", "Zofia", "Amara", "Björn", "Céline", "Dmitri",
];

pub static FAMILY_NAMES: &[&str] = &[
    "Anderson",
    "Becker",
    "Costa",
    "Dubois",
    "Eriksson",
    "Fischer",
    "García",
    "Hansen",
    "Ivanova",
    "Jensen",
    "Kowalski",
    "López",
    "Müller",
    "Nakamura",
    "O'Brien",
    "Patel",
    "Rossi",
    "Schmidt",
    "Tanaka",
    "Ulrich",
    "Van Dijk",
    "Williams",
    "Yilmaz",
    "Zhang",
    "Okafor",
    "Novak",
    "Moreau",
    "Lindqvist",
    "Kim",
    "Haddad",
];

pub static ZH_FAMILY: &[&str] = &["王", "李", "张", "刘", "陈", "杨", "赵", "黄", "周", "吴"];
pub static ZH_GIVEN: &[&str] = &[
    "伟", "芳", "娜", "敏", "静", "磊", "洋", "艳", "勇", "军", "杰", "婷",
];
pub static JA_FAMILY: &[&str] = &[
    "佐藤", "鈴木", "高橋", "田中", "渡辺", "伊藤", "山本", "中村", "小林", "加藤",
];
pub static JA_GIVEN: &[&str] = &[
    "翔太",
    "陽菜",
    "大輔",
    "美咲",
    "健一",
    "由美",
    "拓海",
    "さくら",
    "直樹",
    "恵",
];
pub static KO_FAMILY: &[&str] = &["김", "이", "박", "최", "정", "강", "조", "윤", "장", "임"];
pub static KO_GIVEN: &[&str] = &[
    "민준", "서연", "지훈", "하은", "도윤", "지민", "현우", "수빈", "예준", "유진",
];

pub static INSTITUTIONS: &[(&str, &str)] = &[
    ("University of Oxford", "GB"),
    ("ETH Zurich", "CH"),
    ("Massachusetts Institute of Technology", "US"),
    ("Tsinghua University", "CN"),
    ("University of Tokyo", "JP"),
    ("Seoul National University", "KR"),
    ("Sorbonne Université", "FR"),
    ("Max Planck Institute", "DE"),
    ("University of São Paulo", "BR"),
    ("University of Cape Town", "ZA"),
    ("Indian Institute of Science", "IN"),
    ("University of Melbourne", "AU"),
    ("University of Toronto", "CA"),
    ("Karolinska Institutet", "SE"),
    ("Peking University", "CN"),
    ("Kyoto University", "JP"),
];

pub static PUBLISHERS: &[&str] = &[
    "Elsevier",
    "Springer Nature",
    "Wiley",
    "IEEE",
    "ACM",
    "Oxford University Press",
    "Cambridge University Press",
    "PLOS",
    "MDPI",
    "Frontiers Media",
    "Taylor & Francis",
    "American Physical Society",
];

pub static PLACES: &[(&str, &str)] = &[
    ("London", "GB"),
    ("New York", "US"),
    ("Berlin", "DE"),
    ("Amsterdam", "NL"),
    ("Beijing", "CN"),
    ("Tokyo", "JP"),
    ("Seoul", "KR"),
    ("Cham", "CH"),
    ("Oxford", "GB"),
    ("Boston", "US"),
];

pub static LICENSES: &[&str] = &["cc-by", "cc-by-nc", "cc-by-sa", "cc0", "cc-by-nc-nd"];

pub static EDITOR_ROLES: &[&str] = &["editor", "translator", "illustrator"];
